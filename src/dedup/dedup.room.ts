import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { Room } from "../room.ts";
import { createPostgresDedupKeys } from "./dedup.keys.postgres.ts";
import { createDedupKeys } from "./dedup.keys.ts";
import { renderDedupMetrics } from "./dedup.metrics.ts";
import {
  createCheckDedupPostgres,
  createDedupPostgresStore,
  forgetSourceIn,
} from "./dedup.postgres.ts";
import { dedupRepo } from "./dedup.repo.ts";
import { dedupRoutes } from "./dedup.routes.ts";
import {
  beginDedupBatch,
  countUnverified,
  type DedupBatch,
  type DedupCost,
  type DedupDeps,
  type DedupInput,
  type DedupTicket,
  forgetSource,
  prepareDedup,
  type SourceStats,
  type StatsPeriod,
  sourceStats,
  sweepExpiredKeys,
} from "./dedup.service.ts";
import { createDedupSqliteStore } from "./dedup.sqlite.ts";
import type { CheckDedupPostgres } from "./dedup.store.ts";

export type { DedupBatch, DedupTicket };

/**
 * Every minute: expired keys go in bounded batches (a restart keeps the live ones). Its first run,
 * as the app starts, builds the in-memory index from the key log.
 */
const SWEEP_PATTERN = "0 * * * * *";

export type DedupRoomDeps = Pick<SharedDeps, "clock" | "logger"> & {
  config: Pick<SharedDeps["config"], "dedup_max_keys" | "dedup_max_keys_per_organization">;
} & RoomStorage;

export interface DedupRoomPorts {
  guard: AuthPorts["guard"];
  /** The routing room's lookup: the caller's source or a 404. */
  requireSource: (organizationId: string, sourceId: string) => unknown;
}

/** What the dedup room lends the ingest path (receive → deduplicate → filters → ...). */
export interface DedupPorts {
  /** Before the ingest's transaction: hashes the request under the source's config. */
  prepareDedup(input: DedupInput): DedupTicket;
  /**
   * Inside the ingest's transaction: each key checked against the in-memory index (a hit
   * confirmed by its row) and a fresh one appended to the key log, synchronously, so the check
   * and the write are atomic; the counters once per source when the batch finishes.
   */
  beginBatch(tx: TxHandle): DedupBatch;
  sourceStats(sourceId: string, period: StatsPeriod): Promise<SourceStats>;
  /** Counts an ingest refused for a missing or invalid signature (the source's stats). */
  countUnverified(sourceId: string): Promise<void>;
  /** Inside the transaction that deletes a source: its keys and counters go with it. */
  forgetSource(tx: TxHandle, sourceId: string): void;
  /**
   * PostgreSQL only: the ingest's check inside the `sql.begin` transaction writing its event
   * (the shared key claimed, the ingest counted), the twin of `beginBatch`.
   */
  checkPostgres?: CheckDedupPostgres;
  /** PostgreSQL only: `forgetSource` inside the transaction deleting the source. */
  forgetSourcePostgres?(tx: PostgresTx, sourceId: string): Promise<void>;
  /** The live keys and the keys memory had no room for, in Prometheus text. */
  metricLines(): string[];
}

/**
 * Builds the dedup room (interface.md "Sources and deduplication"): duplicate keys with a TTL,
 * per-source hourly counters, the stats route and the sweep of expired keys.
 */
export function createDedupRoom(deps: DedupRoomDeps, ports: DedupRoomPorts): Room<DedupPorts> {
  const keys = createDedupKeys({
    repo: dedupRepo,
    maxKeys: deps.config.dedup_max_keys,
    maxKeysPerOrganization: deps.config.dedup_max_keys_per_organization,
    onOrganizationFull: (organizationId, maxKeys) =>
      deps.logger.warn(
        "an organization's dedup keys are at WEIR_DEDUP_MAX_KEYS_PER_ORGANIZATION: its new keys are not remembered until its expired keys make room",
        { organization_id: organizationId, max_keys: maxKeys },
      ),
    onFull: (maxKeys) =>
      deps.logger.warn(
        "dedup keys at WEIR_DEDUP_MAX_KEYS: new keys are not remembered (no event is lost; a retry of one may be accepted again) until expired keys make room",
        { max_keys: maxKeys },
      ),
  });
  const cost: DedupCost = { keyed: 0, totalMicros: 0 };
  const dedup: DedupDeps = { repo: dedupRepo, keys, clock: deps.clock, cost };
  const now = () => deps.clock.now();
  const shared = deps.postgres ? createPostgresDedupKeys(deps.postgres.sql) : null;
  const counters =
    deps.postgres && shared
      ? createDedupPostgresStore(deps.postgres, shared)
      : createDedupSqliteStore(sqliteOf(deps), keys, now);
  const lent: DedupPorts = {
    prepareDedup: (input) => prepareDedup(input, cost),
    beginBatch: (tx) => beginDedupBatch(tx, dedup),
    sourceStats: (sourceId, period) => sourceStats(counters, sourceId, period, dedup),
    countUnverified: (sourceId) => countUnverified(counters, sourceId, dedup),
    forgetSource: (tx, sourceId) => forgetSource(tx, sourceId, dedup),
    metricLines: () => renderDedupMetrics(keys.figures(), { ...cost }),
    ...(shared && {
      checkPostgres: createCheckDedupPostgres(shared, now),
      forgetSourcePostgres: (tx: PostgresTx, sourceId: string) =>
        forgetSourceIn(tx, shared, sourceId),
    }),
  };
  return {
    routes: dedupRoutes({ ...ports, sourceStats: lent.sourceStats }),
    jobs: [
      {
        name: "dedup.sweep",
        scope: "cluster",
        pattern: SWEEP_PATTERN,
        runNow: true,
        run: async () => {
          const removed = shared
            ? await shared.sweep(now())
            : await sweepExpiredKeys(sqliteOf(deps), dedup);
          if (removed > 0) deps.logger.info("expired dedup keys swept", { removed });
        },
      },
    ],
    subscriptions: [],
    stop: () => {},
    ports: lent,
  };
}
