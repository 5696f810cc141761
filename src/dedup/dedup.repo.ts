import type { Database } from "bun:sqlite";
import type { DbHandle } from "../db/db.tx.ts";

/** Counter sums of a source over a range of hours. */
export interface CounterTotals {
  totalRequests: number;
  duplicatesRejected: number;
}

function prepareStatements(sqlite: Database) {
  return {
    // ONE statement decides and records: a fresh key (or one whose TTL has passed) is written and
    // RETURNING gives a row; a live key makes the DO UPDATE's WHERE false, so no row comes back.
    // Two identical requests in one transaction therefore cannot both be fresh.
    claim: sqlite.prepare<{ fresh: number }, [string, string, number, number]>(
      `INSERT INTO dedup_keys (source_id, key, expires_at) VALUES (?1, ?2, ?3)
       ON CONFLICT (source_id, key) DO UPDATE SET expires_at = excluded.expires_at
       WHERE dedup_keys.expires_at <= ?4
       RETURNING 1 AS fresh`,
    ),
    count: sqlite.prepare<never, [string, number, number, number]>(
      `INSERT INTO dedup_counters (source_id, hour_start, total_requests, duplicates_rejected)
       VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (source_id, hour_start) DO UPDATE SET
         total_requests = total_requests + excluded.total_requests,
         duplicates_rejected = duplicates_rejected + excluded.duplicates_rejected`,
    ),
    totals: sqlite.prepare<{ total: number | null; duplicates: number | null }, [string, number]>(
      `SELECT SUM(total_requests) AS total, SUM(duplicates_rejected) AS duplicates
         FROM dedup_counters WHERE source_id = ?1 AND hour_start >= ?2`,
    ),
    // Bounded: one batch is one short transaction, so ingests commit between batches.
    sweep: sqlite.prepare<never, [number, number]>(
      `DELETE FROM dedup_keys WHERE rowid IN (
         SELECT rowid FROM dedup_keys WHERE expires_at <= ?1 LIMIT ?2)`,
    ),
    forgetKeys: sqlite.prepare<never, [string]>("DELETE FROM dedup_keys WHERE source_id = ?"),
    forgetCounters: sqlite.prepare<never, [string]>(
      "DELETE FROM dedup_counters WHERE source_id = ?",
    ),
  };
}

type Statements = ReturnType<typeof prepareStatements>;
const byConnection = new WeakMap<Database, Statements>();

/**
 * The SQL of deduplication, prepared once per connection. Every call takes the handle it runs
 * on (the ingest's transaction, or the database), so the check joins the caller's commit.
 */
function statements(handle: Pick<DbHandle, "sqlite">): Statements {
  let prepared = byConnection.get(handle.sqlite);
  if (!prepared) {
    prepared = prepareStatements(handle.sqlite);
    byConnection.set(handle.sqlite, prepared);
  }
  return prepared;
}

export const dedupRepo = {
  /** Stores the key until `expiresAt` unless a live copy exists; true when it was fresh. */
  claimKey(
    handle: Pick<DbHandle, "sqlite">,
    sourceId: string,
    key: string,
    expiresAt: number,
    now: number,
  ): boolean {
    return statements(handle).claim.get(sourceId, key, expiresAt, now) !== null;
  },
  /** Adds `total` ingests, `duplicates` of them rejected, to the source's counter for `hourStart`. */
  countIngests(
    handle: Pick<DbHandle, "sqlite">,
    sourceId: string,
    hourStart: number,
    total: number,
    duplicates: number,
  ): void {
    statements(handle).count.run(sourceId, hourStart, total, duplicates);
  },
  /** Sums the counters of the hours starting at or after `fromHour`. */
  totals(handle: Pick<DbHandle, "sqlite">, sourceId: string, fromHour: number): CounterTotals {
    const row = statements(handle).totals.get(sourceId, fromHour);
    return { totalRequests: row?.total ?? 0, duplicatesRejected: row?.duplicates ?? 0 };
  },
  /** Deletes at most `limit` keys expired at `now`; returns how many went. */
  sweepExpired(handle: Pick<DbHandle, "sqlite">, now: number, limit: number): number {
    return statements(handle).sweep.run(now, limit).changes;
  },
  /** Drops a source's keys and counters (the source is gone). */
  forgetSource(handle: Pick<DbHandle, "sqlite">, sourceId: string): void {
    const s = statements(handle);
    s.forgetKeys.run(sourceId);
    s.forgetCounters.run(sourceId);
  },
};
