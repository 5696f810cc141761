import { afterAll, afterEach, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { createConfiguredSender } from "../deps.ts";
import { loadConfig } from "../shared/config.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createMonitorsRoom } from "./monitors.room.ts";

const sqliteDbs: TestDb[] = [];
const rooms: { stop(): void | Promise<void> }[] = [];
afterEach(async () => {
  for (const room of rooms.splice(0)) await room.stop();
  for (const db of sqliteDbs.splice(0)) db.destroy();
});
const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});
const databases = usePgDatabases();

const T0 = Date.UTC(2026, 0, 1, 12);

/** Two nodes' monitors rooms over one PostgreSQL database. */
async function twoNodes() {
  const made = await databases.create();
  const clock = createFakeClock(T0);
  const nodes = [];
  for (let i = 0; i < 2; i++) {
    const pg = await openPostgres(made.url, { poolSize: 4 });
    pools.push(pg);
    if (i === 0) await runPgMigrations(pg.sql, PG_MIGRATIONS);
    const db = createTestDb();
    const scheduler = createManualScheduler();
    sqliteDbs.push(db);
    const config = loadConfig({ env: {}, flags: { data_dir: db.dir } }).config;
    const room = createMonitorsRoom(
      {
        db,
        postgres: pg,
        clock,
        ids: createIds(),
        logger: createLogger({ level: "error", write: () => {} }),
        config,
        scheduler,
        outbound: createConfiguredSender(config),
        publicBaseUrl: () => "http://weir.test",
      },
      {
        guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
        resolveSecrets: async () => () => undefined,
        monitorChanged: () => {
          throw new Error("the SQLite listener is not told on PostgreSQL");
        },
      },
    );
    rooms.push(room);
    const started = room.subscriptions.find((s) => s.event === "server.started");
    if (!started) throw new Error("the room starts its checks on server.started");
    await started.handler({ baseUrl: "http://weir.test", port: 0 } as never);
    // The due-queue's poll, which claims on each node what is due.
    nodes.push({ room, claim: () => scheduler.run("monitors.poll"), pg });
  }
  return { nodes, clock, sql: (nodes[0] as { pg: PostgresDb }).pg.sql };
}

test("on PostgreSQL a due monitor is checked once by one of the nodes, and the ports read it", async () => {
  const { nodes, clock, sql } = await twoNodes();
  await sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
            VALUES ('org', 'org', 'team', 'x', 'x')`;
  // A push monitor whose push is overdue: its check needs no network.
  await sql`INSERT INTO monitors (id, organization_id, name, type, settings, interval_seconds,
              timeout_seconds, push_token, phase_ms, next_check_at, created_at, updated_at)
            VALUES ('m1', 'org', 'backup', 'push', '{}', 60, 10, 'tok', 0, ${T0}::bigint,
              'x', 'x')`;
  await Promise.all(nodes.map((node) => node.claim()));
  const [check] = await pollUntil(async () => {
    const rows = await sql`SELECT status, error FROM monitor_checks WHERE monitor_id = 'm1'`;
    return rows.length > 0 && rows;
  });
  expect(check).toEqual({ status: "down", error: "no push received within the interval" });
  const [row] = await pollUntil(async () => {
    const rows = await sql`SELECT next_check_at, locked_until FROM monitors WHERE id = 'm1'`;
    return rows[0]?.locked_until === null && rows;
  });
  expect(Number(row.next_check_at)).toBe(T0 + 60_000);
  // Claimed again, nothing is due: one check in all.
  await Promise.all(nodes.map((node) => node.claim()));
  const [{ n }] = await sql`SELECT count(*)::int AS n FROM monitor_checks`;
  expect(n).toBe(1);

  const ports = (nodes[1] as (typeof nodes)[number]).room.ports;
  expect(await ports.monitorExists("org", "m1")).toBe(true);
  expect(await ports.monitorExists("other", "m1")).toBe(false);
  expect(await ports.monitorSummary("org", "m1")).toEqual({
    id: "m1",
    name: "backup",
    status: "down",
  });
  expect(await ports.dailyBuckets("m1", 1)).toMatchObject([{ checks: 1, down: 1 }]);
  expect((await ports.stateChanges(["m1"], "2000")).map((c) => [c.from, c.to])).toEqual([
    ["pending", "down"],
  ]);
  clock.advance(60_000);
  await Promise.all(nodes.map((node) => node.claim()));
  await pollUntil(async () => {
    const [{ n: checks }] = await sql`SELECT count(*)::int AS n FROM monitor_checks`;
    return checks === 2;
  });
});
