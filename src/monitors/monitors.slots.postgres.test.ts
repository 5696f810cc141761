import { afterAll, afterEach, expect, test } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { loadConfig } from "../shared/config.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import type { Monitor, ProbeResult } from "./monitors.model.ts";
import { type MonitorsStorage, monitorsStorage } from "./monitors.storage.ts";

const databases = usePgDatabases();
const tempDir = useTempDirs("weir-monitor-slots-");
const pools: PostgresDb[] = [];
const storages: MonitorsStorage[] = [];
const gates: (() => void)[] = [];
afterEach(async () => {
  // Slow checks still waiting end now, so each storage's queue settles.
  for (const open of gates.splice(0)) open();
  for (const storage of storages.splice(0)) await storage.stop();
});
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

const T0 = Date.UTC(2026, 0, 1, 12);
const UP: ProbeResult = {
  status: "up",
  statusCode: 200,
  responseTimeMs: 1,
  error: null,
  tlsDaysRemaining: null,
};

/** A database with organizations `a` and `b`; `seed` adds monitors due at the given times. */
async function database() {
  const made = await databases.create();
  const admin = await openPostgres(made.url, { poolSize: 2 });
  pools.push(admin);
  await runPgMigrations(admin.sql, PG_MIGRATIONS);
  await admin.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
                  VALUES ('a', 'a', 'team', 'x', 'x'), ('b', 'b', 'team', 'x', 'x')`;
  const seed = async (organizationId: string, id: string, dueAt: number) => {
    await admin.sql`INSERT INTO monitors (id, organization_id, name, type, settings,
                      interval_seconds, timeout_seconds, phase_ms, next_check_at, created_at,
                      updated_at)
                    VALUES (${id}, ${organizationId}, ${id}, 'http', '{}', 60, 30, 0,
                      ${dueAt}::bigint, 'x', 'x')`;
  };
  return { url: made.url, sql: admin.sql, seed };
}

/**
 * One node's monitor storage over the database, started. Monitors of organization `a` are slow:
 * their checks hold their slots until the test opens their gate.
 */
async function node(url: string, limits: { concurrency: number; perOrganization: number }) {
  const pg = await openPostgres(url, { poolSize: 4 });
  pools.push(pg);
  const flags = {
    data_dir: tempDir(),
    monitor_concurrency: limits.concurrency,
    monitor_per_organization: limits.perOrganization,
  };
  const scheduler = createManualScheduler();
  const probed: string[] = [];
  const storage = monitorsStorage(
    {
      postgres: pg,
      clock: createFakeClock(T0),
      ids: createIds(),
      logger: createLogger({ level: "error", write: () => {} }),
      config: loadConfig({ env: {}, flags }).config,
      scheduler,
    },
    {
      probe(monitor: Monitor) {
        probed.push(monitor.id);
        if (monitor.organizationId !== "a") return Promise.resolve(UP);
        return new Promise((resolve) => gates.push(() => resolve(UP)));
      },
      monitorChanged: () => {
        throw new Error("the SQLite listener is not told on PostgreSQL");
      },
      inMaintenance: () => false,
    },
  );
  storages.push(storage);
  storage.start();
  return { probed, scheduler };
}

test("on PostgreSQL an organization with many slow due monitors leaves slots for another's check", async () => {
  const { url, sql, seed } = await database();
  // Organization a's twelve monitors are due first; b's one after them all.
  for (let i = 0; i < 12; i++) await seed("a", `a${String(i).padStart(2, "0")}`, T0 - 60_000 + i);
  await seed("b", "b1", T0);
  const { probed } = await node(url, { concurrency: 4, perOrganization: 2 });

  // Without a share per organization, a's slow checks would take all four slots and b wait.
  const [check] = await pollUntil(
    async () => {
      const rows = await sql`SELECT status FROM monitor_checks WHERE monitor_id = 'b1'`;
      return rows.length > 0 && rows;
    },
    { what: "b's check while a's slow checks run" },
  );
  expect(check).toEqual({ status: "up" });
  expect(probed.filter((id) => id.startsWith("a"))).toEqual(["a00", "a01"]);
  const [{ leased }] = await sql`
    SELECT count(*)::int AS leased FROM monitors WHERE locked_until IS NOT NULL`;
  expect(leased).toBe(2);
});

test("on PostgreSQL a running check's lease is extended, no other node takes it, and its outcome releases it", async () => {
  const { url, sql, seed } = await database();
  await seed("a", "slow", T0);
  const first = await node(url, { concurrency: 4, perOrganization: 2 });
  await pollUntil(() => first.probed.length === 1, { what: "the first node's check" });
  const leaseOf = async () => {
    const [row] = await sql`SELECT locked_until, next_check_at FROM monitors WHERE id = 'slow'`;
    return { lease: row.locked_until as string | null, due: Number(row.next_check_at) };
  };
  const claimed = await leaseOf();
  expect(claimed.lease).not.toBeNull();

  const second = await node(url, { concurrency: 4, perOrganization: 2 });
  // The extension job starts the extensions without awaiting them: the row shows when it landed.
  await first.scheduler.run("monitors.leases");
  await pollUntil(async () => Number((await leaseOf()).lease) > Number(claimed.lease), {
    what: "the lease extended on the server's clock",
  });
  await second.scheduler.run("monitors.poll");
  expect(second.probed).toEqual([]);

  for (const open of gates.splice(0)) open();
  const recorded = await pollUntil(
    async () => {
      const now = await leaseOf();
      return now.lease === null && now;
    },
    { what: "the outcome's write releasing the lease" },
  );
  // The next check is at the monitor's next slot: its 60 s interval on from the fake clock's now.
  expect(recorded.due).toBe(T0 + 60_000);
  const [{ n }] =
    await sql`SELECT count(*)::int AS n FROM monitor_checks WHERE monitor_id = 'slow'`;
  expect(n).toBe(1);
  expect(second.probed).toEqual([]);
});
