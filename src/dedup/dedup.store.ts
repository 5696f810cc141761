import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { CounterTotals } from "./dedup.repo.ts";

/**
 * The dedup room's counters (one row per source per hour), one implementation per database
 * (dedup.sqlite.ts, dedup.postgres.ts). The keys themselves are `DedupKeys` on SQLite and
 * `SharedDedupKeys` (dedup.keys.store.ts) on PostgreSQL.
 */
export interface DedupStore {
  /** Adds `total` ingests, `duplicates` of them rejected, to the source's counter for `hourStart`. */
  countIngests(
    sourceId: string,
    hourStart: number,
    total: number,
    duplicates: number,
  ): Promise<void>;
  /** Counts one ingest refused for its signature in the source's counter for `hourStart`. */
  countUnverified(sourceId: string, hourStart: number): Promise<void>;
  /** Sums the source's counters of the hours starting at or after `fromHour`. */
  totals(sourceId: string, fromHour: number): Promise<CounterTotals>;
  /** The source is gone: its keys and counters go. */
  forgetSource(sourceId: string): Promise<void>;
}

/**
 * The ingest's check on PostgreSQL, run inside the transaction that writes the event
 * (`tx`): the key claimed in the shared keys (a live key held by any node makes it a duplicate)
 * and the ingest counted, both committing or rolling back with the event. True: a duplicate,
 * which must then store nothing else.
 */
export type CheckDedupPostgres = (
  tx: PostgresTx,
  ticket: { sourceId: string; key: Uint8Array | null; ttlMs: number },
) => Promise<boolean>;
