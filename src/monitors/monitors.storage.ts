import type { MonitorChange } from "../alerts/alerts.model.ts";
import { createPostgresDueQueue } from "../db/db.due-queue.postgres.ts";
import { createDueQueue } from "../db/db.due-queue.ts";
import { createPostgresDueRows } from "../db/db.due-rows.postgres.ts";
import type { PostgresDb, PostgresSql as SQL } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { RoomJob } from "../room.ts";
import { type RecordDeps, recordOutcome, recordOutcomeInStore } from "./check-outcome.service.ts";
import type { ChecksDeps } from "./checks.service.ts";
import type { Monitor, ProbeResult } from "./monitors.model.ts";
import { createMonitorsPostgresStore, monitorOfPgRow } from "./monitors.postgres.ts";
import { monitorOfRow } from "./monitors.repo.ts";
import { createMonitorsSqliteStore } from "./monitors.sqlite.ts";
import type { MonitorsStore } from "./monitors.store.ts";

export type MonitorsStorageDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "config" | "scheduler"
> &
  RoomStorage;

export interface MonitorsStorageHooks {
  probe(monitor: Monitor): Promise<ProbeResult>;
  monitorChanged(tx: TxHandle, change: MonitorChange): void;
  /** The alerts' listener on PostgreSQL (alerts' PostgreSQL storage is still to come). */
  monitorChangedPostgres?(tx: SQL, change: MonitorChange): Promise<void>;
  inMaintenance(monitorId: string, at: Date): boolean;
}

/** What the room runs on, whichever database holds it. */
export interface MonitorsStorage {
  store: MonitorsStore;
  record: ChecksDeps["record"];
  /** Checks due monitors; `wake` after a write made one due sooner. */
  jobs: RoomJob[];
  start(): void;
  wake(): void;
  /** Stops claiming; resolves once the running checks have recorded their outcomes. */
  stop(): Promise<void>;
}

const MONITORS_DUE_TABLE = {
  table: "monitors",
  due: "next_check_at",
  key: "organization_id",
  where: "paused = 0",
};
/**
 * How long a PostgreSQL claim holds a monitor unextended: a running check's lease is extended
 * every third of it, and a killed node's monitors are checked again once it lapses.
 */
const POSTGRES_LEASE_MS = 30_000;

/**
 * SQLite: the repos under the store, the scheduled checks in one due-queue, each outcome one
 * synchronous transaction. PostgreSQL: the store, the scheduled checks in the due-queue's
 * PostgreSQL twin (a due check goes to one node; each node gives an organization at most
 * `monitor_per_organization` of its slots, as on SQLite), each outcome one transaction through
 * the store.
 */
export function monitorsStorage(
  deps: MonitorsStorageDeps,
  hooks: MonitorsStorageHooks,
): MonitorsStorage {
  if (deps.postgres) return postgresStorage(deps, deps.postgres, hooks);
  const db = sqliteOf(deps);
  const store = createMonitorsSqliteStore(db, { monitorChanged: hooks.monitorChanged });
  const recordDeps: RecordDeps = {
    checks: store.checks,
    dependencies: store.dependencies,
    tx: (fn) => db.tx(fn),
    monitorChanged: hooks.monitorChanged,
    inMaintenance: hooks.inMaintenance,
    clock: deps.clock,
    ids: deps.ids,
  };
  const queue = createDueQueue({
    name: "monitors",
    db,
    table: MONITORS_DUE_TABLE,
    clock: deps.clock,
    scheduler: deps.scheduler,
    logger: deps.logger,
    concurrency: deps.config.monitor_concurrency,
    perKey: deps.config.monitor_per_organization,
    async run(row, lease) {
      const monitor = monitorOfRow(row);
      const result = await hooks.probe(monitor);
      recordOutcome(monitor, result, { kind: "slot", lease: lease.until }, recordDeps);
    },
  });
  return {
    store,
    record: (monitor, result, schedule) => recordOutcome(monitor, result, schedule, recordDeps),
    jobs: [],
    start: () => queue.start(),
    wake: () => queue.notify(),
    stop: () => queue.stop(),
  };
}

function postgresStorage(
  deps: MonitorsStorageDeps,
  pg: PostgresDb,
  hooks: MonitorsStorageHooks,
): MonitorsStorage {
  const store = createMonitorsPostgresStore(pg, { monitorChanged: hooks.monitorChangedPostgres });
  const recordDeps = {
    store,
    clock: deps.clock,
    ids: deps.ids,
    inMaintenance: hooks.inMaintenance,
  };
  const queue = createPostgresDueQueue({
    name: "monitors",
    store: createPostgresDueRows({
      sql: pg.sql,
      table: MONITORS_DUE_TABLE,
      node: crypto.randomUUID(),
      leaseMs: POSTGRES_LEASE_MS,
      // Due times are the app's (each monitor's phase slots): judged by the clock that set them.
      dueNow: () => deps.clock.now(),
    }),
    table: MONITORS_DUE_TABLE,
    scheduler: deps.scheduler,
    logger: deps.logger,
    leaseMs: POSTGRES_LEASE_MS,
    concurrency: () => deps.config.monitor_concurrency,
    perKey: deps.config.monitor_per_organization,
    async run(row, lease) {
      const monitor = monitorOfPgRow(row);
      const result = await hooks.probe(monitor);
      // The outcome's write clears the lease it names: no extension may move it meanwhile.
      const until = await lease.settle();
      await recordOutcomeInStore(monitor, result, { kind: "slot", lease: until }, recordDeps);
    },
  });
  return {
    store,
    record: (monitor, result, schedule) =>
      recordOutcomeInStore(monitor, result, schedule, recordDeps),
    jobs: [],
    start: () => queue.start(),
    wake: () => queue.notify(),
    stop: () => queue.stop(),
  };
}
