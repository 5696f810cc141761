import type { MonitorChange } from "../alerts/alerts.model.ts";
import { createDueQueue } from "../db/db.due-queue.ts";
import type { PostgresDb, PostgresSql as SQL } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { RoomJob } from "../room.ts";
import { type RecordDeps, recordOutcome, recordOutcomeInStore } from "./check-outcome.service.ts";
import type { ChecksDeps } from "./checks.service.ts";
import type { Monitor, ProbeResult } from "./monitors.model.ts";
import { createMonitorsPostgresStore } from "./monitors.postgres.ts";
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
  stop(): void;
}

/** A lease outlives its monitor's probe (its timeout) by this: a crashed node's rows come back. */
const LEASE_SLACK_MS = 30_000;
export const MONITORS_CLAIM_JOB = "monitors.claim";

/**
 * SQLite: the repos under the store, the scheduled checks in one due-queue, each outcome one
 * synchronous transaction. PostgreSQL: the store, claimed every second by each node (a due
 * check goes to one node), each outcome one transaction through the store.
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
    table: { table: "monitors", due: "next_check_at", key: "organization_id", where: "paused = 0" },
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
  const log = deps.logger.child({ scope: "monitors" });
  let running = 0;
  let stopped = false;
  const check = async (monitor: Monitor, lease: number) => {
    try {
      const result = await hooks.probe(monitor);
      await recordOutcomeInStore(monitor, result, { kind: "slot", lease }, recordDeps);
    } catch (error) {
      // The lease stays: the check runs again when it ends, as after a crash.
      log.error("monitor check failed", { monitor_id: monitor.id, error });
    } finally {
      running -= 1;
    }
  };
  const claim = async () => {
    const free = deps.config.monitor_concurrency - running;
    if (stopped || free <= 0) return;
    const claimed = await store.claimDue(deps.clock.now(), LEASE_SLACK_MS, free);
    running += claimed.length;
    for (const { monitor, lease } of claimed) void check(monitor, lease);
  };
  return {
    store,
    record: (monitor, result, schedule) =>
      recordOutcomeInStore(monitor, result, schedule, recordDeps),
    jobs: [{ name: MONITORS_CLAIM_JOB, intervalSeconds: 1, run: claim }],
    start: () => {
      stopped = false;
    },
    wake: () => {
      void claim().catch((error) => log.error("monitor claim failed", { error }));
    },
    stop: () => {
      stopped = true;
    },
  };
}
