import type { TxHandle } from "../db/db.tx.ts";
import type { Clock } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import type { RequestView } from "../shared/field-path.ts";
import type { DedupKeys } from "./dedup.keys.ts";
import { type DedupConfig, dedupDigest } from "./dedup.model.ts";
import type { dedupRepo } from "./dedup.repo.ts";
import type { DedupStore } from "./dedup.store.ts";

export interface DedupDeps {
  repo: typeof dedupRepo;
  keys: DedupKeys;
  clock: Clock;
  /** Where the time spent on keys is added up (for /metrics); absent in tests that need none. */
  cost?: DedupCost;
}

/**
 * What deduplication costs the ingest path: requests keyed (a source with dedup on) and the time
 * spent hashing and checking them, so the cost per event is seconds ÷ keyed.
 */
export interface DedupCost {
  keyed: number;
  totalMicros: number;
}

/**
 * What the check of one ingest needs, computed before the ingest's transaction (hashing is the
 * CPU part; the transaction stays short). `key` null: deduplication is off for this source.
 */
export interface DedupTicket {
  sourceId: string;
  /** The source's organization: its keys count against its share of the cap. */
  organizationId?: string;
  /** The SHA-256 of the canonical encoding. */
  key: Uint8Array | null;
  ttlMs: number;
}

export interface DedupInput {
  sourceId: string;
  organizationId?: string;
  config: DedupConfig | null;
  request: RequestView;
  rawBody: string;
}

const HOUR_MS = 3_600_000;
const hourStart = (at: number) => at - (at % HOUR_MS);

/** Step 1, outside the transaction: the key of this request under the source's config. */
export function prepareDedup(input: DedupInput, cost?: DedupCost): DedupTicket {
  const { config } = input;
  const { sourceId, organizationId } = input;
  if (!config?.enabled) return { sourceId, organizationId, key: null, ttlMs: 0 };
  const started = cost ? performance.now() : 0;
  const key = dedupDigest(config, input.request, input.rawBody);
  if (cost) {
    cost.keyed += 1;
    cost.totalMicros += (performance.now() - started) * 1000;
  }
  return { sourceId, organizationId, key, ttlMs: config.ttl_seconds * 1000 };
}

/** Step 2 for a whole group commit, INSIDE its transaction (see `beginDedupBatch`). */
export interface DedupBatch {
  /**
   * Checks the ticket's key and, when fresh, records it in this transaction (synchronously, so
   * two identical requests in one commit cannot both pass) and tallies the ingest; true: a
   * duplicate, which must then store nothing else (no event, no delivery, no quota use).
   */
  check(ticket: DedupTicket): boolean;
  /** Adds the tallies to the hourly counters: one statement per source, not per request. */
  finish(): void;
  /**
   * After the transaction: it committed (the keys stay) or rolled back, its savepoint or its
   * COMMIT failed (the keys' index entries go). Reporting spares a read per batch.
   */
  committed(): void;
  rolledBack(): void;
}

/**
 * Starts the dedup work of one transaction. Counting per source per batch keeps the stats exact
 * (the counters commit or roll back with the keys) at one counter statement a batch.
 */
export function beginDedupBatch(tx: TxHandle, deps: DedupDeps): DedupBatch {
  const now = deps.clock.now();
  const tallies = new Map<string, { total: number; duplicates: number }>();
  const outcome = deps.keys.begin(tx, now);
  return {
    committed: outcome.committed,
    rolledBack: outcome.rolledBack,
    check(ticket) {
      const { cost } = deps;
      const started = cost && ticket.key !== null ? performance.now() : null;
      const expiresAt = now + ticket.ttlMs;
      const duplicate =
        ticket.key !== null &&
        deps.keys.claim(tx, ticket.sourceId, ticket.key, expiresAt, now, ticket.organizationId) ===
          "duplicate";
      if (cost && started !== null) cost.totalMicros += (performance.now() - started) * 1000;
      const tally = tallies.get(ticket.sourceId);
      if (tally) {
        tally.total += 1;
        if (duplicate) tally.duplicates += 1;
      } else tallies.set(ticket.sourceId, { total: 1, duplicates: duplicate ? 1 : 0 });
      return duplicate;
    },
    finish() {
      for (const [sourceId, { total, duplicates }] of tallies) {
        deps.repo.countIngests(tx, sourceId, hourStart(now), total, duplicates);
      }
      tallies.clear();
    },
  };
}

/** One ingest's step 2 alone: a batch of one. */
export function checkAndRecord(
  tx: TxHandle,
  ticket: DedupTicket,
  deps: DedupDeps,
): { duplicate: boolean } {
  const batch = beginDedupBatch(tx, deps);
  const duplicate = batch.check(ticket);
  batch.finish();
  return { duplicate };
}

/** Inside the transaction that deletes a source: its keys and counters go with it. */
export function forgetSource(tx: TxHandle, sourceId: string, deps: DedupDeps): void {
  deps.keys.forget(tx, sourceId, deps.clock.now());
}

export const STATS_PERIODS = { "24h": 24, "7d": 7 * 24, "30d": 30 * 24 } as const;
export type StatsPeriod = keyof typeof STATS_PERIODS | "all_time";

export interface SourceStats {
  total_requests: number;
  duplicates_rejected: number;
  duplicate_rate: number;
  /** Ingests refused with 401 for a missing or invalid signature; not in total_requests. */
  rejected_unverified: number;
  period: StatsPeriod;
}

/** Reads `?period=`: absent → all_time; anything but 24h, 7d, 30d → 422. */
export function parseStatsPeriod(value: unknown): StatsPeriod {
  if (value === undefined) return "all_time";
  if (typeof value === "string" && Object.hasOwn(STATS_PERIODS, value)) {
    return value as StatsPeriod;
  }
  throw validationFailed({ period: ["must be one of 24h, 7d, 30d"] });
}

/**
 * A source's ingest figures (decisions.md §12). A period is counted in whole hours: the current
 * hour and the 23 (167, 719) before it.
 */
export async function sourceStats(
  counters: Pick<DedupStore, "totals">,
  sourceId: string,
  period: StatsPeriod,
  deps: Pick<DedupDeps, "clock">,
): Promise<SourceStats> {
  const fromHour =
    period === "all_time"
      ? Number.MIN_SAFE_INTEGER
      : hourStart(deps.clock.now()) - (STATS_PERIODS[period] - 1) * HOUR_MS;
  const totals = await counters.totals(sourceId, fromHour);
  return {
    total_requests: totals.totalRequests,
    duplicates_rejected: totals.duplicatesRejected,
    duplicate_rate: duplicateRate(totals.duplicatesRejected, totals.totalRequests),
    rejected_unverified: totals.rejectedUnverified,
    period,
  };
}

/** Percent, 0 when nothing came in; two decimals are plenty for a dashboard. */
export function duplicateRate(duplicates: number, total: number): number {
  return total === 0 ? 0 : Math.round((duplicates / total) * 10_000) / 100;
}

/**
 * Counts an ingest the source refused for its signature (decisions.md §15). Its own small
 * transaction: the refusal stores nothing else, and it needs no fsync of its own.
 */
export function countUnverified(
  counters: Pick<DedupStore, "countUnverified">,
  sourceId: string,
  deps: Pick<DedupDeps, "clock">,
): Promise<void> {
  return counters.countUnverified(sourceId, hourStart(deps.clock.now()));
}

/** Deletes expired keys in bounded batches (see DedupKeys.sweep); how many went. */
export function sweepExpiredKeys(
  db: { tx<T>(fn: (tx: TxHandle) => T): T },
  deps: DedupDeps,
  batch?: number,
): Promise<number> {
  return deps.keys.sweep(db, () => deps.clock.now(), batch);
}
