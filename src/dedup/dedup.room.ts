import type { AuthPorts } from "../auth/auth.room.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import type { Room } from "../room.ts";
import { createDedupKeys } from "./dedup.keys.ts";
import { renderDedupMetrics } from "./dedup.metrics.ts";
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

export type { DedupBatch, DedupTicket };

/**
 * Every minute: expired keys go in bounded batches (a restart keeps the live ones). Its first run,
 * as the app starts, builds the in-memory index from the key log.
 */
const SWEEP_PATTERN = "0 * * * * *";

export type DedupRoomDeps = Pick<AppDeps, "db" | "clock" | "logger"> & {
  config: Pick<AppDeps["config"], "dedup_max_keys" | "dedup_max_keys_per_organization">;
};

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
  sourceStats(sourceId: string, period: StatsPeriod): SourceStats;
  /** Counts an ingest refused for a missing or invalid signature (the source's stats). */
  countUnverified(sourceId: string): void;
  /** Inside the transaction that deletes a source: its keys and counters go with it. */
  forgetSource(tx: TxHandle, sourceId: string): void;
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
  const lent: DedupPorts = {
    prepareDedup: (input) => prepareDedup(input, cost),
    beginBatch: (tx) => beginDedupBatch(tx, dedup),
    sourceStats: (sourceId, period) => sourceStats(deps.db, sourceId, period, dedup),
    countUnverified: (sourceId) => countUnverified(deps.db, sourceId, dedup),
    forgetSource: (tx, sourceId) => forgetSource(tx, sourceId, dedup),
    metricLines: () => renderDedupMetrics(keys.figures(), { ...cost }),
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
          const removed = await sweepExpiredKeys(deps.db, dedup);
          if (removed > 0) deps.logger.info("expired dedup keys swept", { removed });
        },
      },
    ],
    subscriptions: [],
    stop: () => {},
    ports: lent,
  };
}
