import { afterAll, afterEach, expect, test } from "bun:test";
import type { MonitorChange } from "../alerts/alerts.model.ts";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { Ids } from "../shared/ids.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import {
  type RecordDeps,
  recordOutcome,
  recordOutcomeInStore,
  type Schedule,
} from "./check-outcome.service.ts";
import type { Monitor, ProbeResult } from "./monitors.model.ts";
import { createMonitorsPostgresStore } from "./monitors.postgres.ts";
import { createMonitorsSqliteStore } from "./monitors.sqlite.ts";
import type { MonitorsStore } from "./monitors.store.ts";

// The same outcomes through the synchronous SQLite path and through the PostgreSQL store must
// leave the same timeline and tell the alerts the same things.

const sqliteDbs: TestDb[] = [];
afterEach(() => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
});
let pg: PostgresDb | null = null;
afterAll(async () => {
  await pg?.close();
});
const databases = usePgDatabases();

const T0 = Date.UTC(2026, 0, 1, 12);
const countingIds = (): Ids => {
  let n = 0;
  return { uuid: () => `id-${String(++n).padStart(4, "0")}`, base62: () => "token" };
};

function monitorOf(id: string, parentId: string | null = null): Monitor {
  return {
    id,
    organizationId: "org",
    name: id,
    type: "http",
    settings: { url: `https://${id}.example` },
    intervalSeconds: 60,
    timeoutSeconds: 10,
    retries: 0,
    parentId,
    pushToken: null,
    paused: false,
    state: "pending",
    consecutiveFailures: 0,
    phaseMs: 0,
    nextCheckAt: T0,
    lastCheckedAt: null,
    lastResponseMs: null,
    checksUp: 0,
    checksDown: 0,
    checksDegraded: 0,
    createdAt: new Date(T0).toISOString(),
    updatedAt: new Date(T0).toISOString(),
  } as Monitor;
}

const result = (status: "up" | "down"): ProbeResult => ({
  status,
  statusCode: status === "up" ? 200 : 503,
  responseTimeMs: 80,
  error: status === "up" ? null : "HTTP 503",
  tlsDaysRemaining: null,
});

type RecordFn = (monitor: Monitor, status: "up" | "down", schedule?: Schedule) => Promise<unknown>;

/** Parent and child go down and recover, then the child goes through a maintenance window. */
async function scenario(
  store: MonitorsStore,
  record: RecordFn,
  setMaintenance: (on: boolean) => void,
) {
  const parent = monitorOf("parent");
  const child = monitorOf("child", "parent");
  await store.insertWithinLimit(parent, null);
  await store.insertWithinLimit(child, null);
  await record(parent, "up");
  await record(child, "up");
  await record(parent, "down");
  await record(child, "down");
  await record(parent, "up");
  setMaintenance(true);
  await record(child, "up");
  await record(child, "down");
  setMaintenance(false);
  await record(child, "down");
  const [claimed] = await store.claimDue(T0 + 3_600_000, 60_000, 1);
  if (!claimed) throw new Error("nothing due");
  await record(claimed.monitor, "up", { kind: "slot", lease: claimed.lease });
  await record(claimed.monitor, "up", { kind: "slot", lease: claimed.lease });
  return {
    parent: await store.events("parent"),
    child: await store.events("child"),
    monitors: (await store.figures()).map((f) => [f.id, f.state, f.checksUp, f.checksDown]),
  };
}

const summary = (told: MonitorChange[]) =>
  told.map((c) => [c.condition, c.monitor.id, c.subjectId, c.from, c.to, c.downtimeSeconds]);

test("a check's outcome writes and tells the same on SQLite and PostgreSQL", async () => {
  const db = createTestDb();
  sqliteDbs.push(db);
  const made = await databases.create();
  pg = await openPostgres(made.url, { poolSize: 4 });
  await runPgMigrations(pg.sql, PG_MIGRATIONS);
  const outcomes = [];
  for (const dialect of ["sqlite", "postgres"] as const) {
    const clock = createFakeClock(T0);
    const ids = countingIds();
    const told: MonitorChange[] = [];
    let maintenance = false;
    const common = { clock, ids, inMaintenance: () => maintenance };
    const org =
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ('org', 'org', 'team', 'x', 'x')";
    let store: MonitorsStore;
    let record: RecordFn;
    if (dialect === "sqlite") {
      db.sqlite.run(org);
      const sqlite = createMonitorsSqliteStore(db);
      const deps: RecordDeps = {
        ...common,
        checks: sqlite.checks,
        dependencies: sqlite.dependencies,
        tx: (fn) => db.tx(fn),
        monitorChanged: (_tx, change) => void told.push(change),
      };
      store = sqlite;
      record = async (m, status, schedule = { kind: "none" }) => {
        clock.advance(60_000);
        return recordOutcome(m, result(status), schedule, deps);
      };
    } else {
      await (pg as PostgresDb).sql.unsafe(org);
      store = createMonitorsPostgresStore(pg as PostgresDb, {
        monitorChanged: async (_tx, change) => void told.push(change),
      });
      record = async (m, status, schedule = { kind: "none" }) => {
        clock.advance(60_000);
        return recordOutcomeInStore(m, result(status), schedule, { ...common, store });
      };
    }
    const written = await scenario(store, record, (on) => {
      maintenance = on;
    });
    outcomes.push({ written, told: summary(told) });
  }
  const [sqlite, postgres] = outcomes;
  // The scenario did what it says: the child's down alert waited for its parent.
  expect(sqlite?.told.map(([condition, monitor]) => `${condition} ${monitor}`)).toEqual([
    "monitor_down parent",
    "monitor_up parent",
    "monitor_down child",
    "monitor_up child",
  ]);
  expect(sqlite?.written.child.map((e) => e.to)).toContain("maintenance");
  expect(postgres).toEqual(sqlite);
});
