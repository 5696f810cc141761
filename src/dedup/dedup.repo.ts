import type { Database } from "bun:sqlite";
import type { DbHandle } from "../db/db.tx.ts";

/** Counter sums of a source over a range of hours. */
export interface CounterTotals {
  totalRequests: number;
  duplicatesRejected: number;
  rejectedUnverified: number;
}

/** One row of the key log. */
export interface KeyRow {
  id: number;
  sourceId: string;
  key: Uint8Array;
  expiresAt: number;
}

function prepareStatements(sqlite: Database) {
  return {
    // Append-only: the rowid grows, so the row lands on the table's last page.
    append: sqlite.prepare<never, [string, Uint8Array, number]>(
      "INSERT INTO dedup_key_log (source_id, key, expires_at) VALUES (?1, ?2, ?3)",
    ),
    byId: sqlite.prepare<{ source_id: string; key: Uint8Array; expires_at: number }, [number]>(
      "SELECT source_id, key, expires_at FROM dedup_key_log WHERE id = ?",
    ),
    // Newest first: when the log holds more live keys than memory may, the newest are kept.
    everyRow: sqlite.prepare<
      { id: number; source_id: string; key: Uint8Array; expires_at: number },
      []
    >("SELECT id, source_id, key, expires_at FROM dedup_key_log ORDER BY id DESC"),
    // The row's own expiry decides, so a stale entry of the index never deletes a live key.
    deleteExpired: sqlite.prepare<never, [number, number]>(
      "DELETE FROM dedup_key_log WHERE id = ?1 AND expires_at <= ?2",
    ),
    deleteRow: sqlite.prepare<never, [number]>("DELETE FROM dedup_key_log WHERE id = ?"),
    forgetKeys: sqlite.prepare<never, [string]>("DELETE FROM dedup_key_log WHERE source_id = ?"),
    count: sqlite.prepare<never, [string, number, number, number]>(
      `INSERT INTO dedup_counters (source_id, hour_start, total_requests, duplicates_rejected)
       VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (source_id, hour_start) DO UPDATE SET
         total_requests = total_requests + excluded.total_requests,
         duplicates_rejected = duplicates_rejected + excluded.duplicates_rejected`,
    ),
    countUnverified: sqlite.prepare<never, [string, number]>(
      `INSERT INTO dedup_counters (source_id, hour_start, rejected_unverified) VALUES (?1, ?2, 1)
       ON CONFLICT (source_id, hour_start) DO UPDATE SET
         rejected_unverified = rejected_unverified + 1`,
    ),
    totals: sqlite.prepare<
      { total: number | null; duplicates: number | null; unverified: number | null },
      [string, number]
    >(
      `SELECT SUM(total_requests) AS total, SUM(duplicates_rejected) AS duplicates,
              SUM(rejected_unverified) AS unverified
         FROM dedup_counters WHERE source_id = ?1 AND hour_start >= ?2`,
    ),
    forgetCounters: sqlite.prepare<never, [string]>(
      "DELETE FROM dedup_counters WHERE source_id = ?",
    ),
  };
}

type Statements = ReturnType<typeof prepareStatements>;
const byConnection = new WeakMap<Database, Statements>();

/**
 * The SQL of deduplication, prepared once per connection. Every call takes the handle it runs
 * on (the ingest's transaction, or the database), so the key's row joins the caller's commit.
 */
function statements(handle: Pick<DbHandle, "sqlite">): Statements {
  let prepared = byConnection.get(handle.sqlite);
  if (!prepared) {
    prepared = prepareStatements(handle.sqlite);
    byConnection.set(handle.sqlite, prepared);
  }
  return prepared;
}

type Handle = Pick<DbHandle, "sqlite">;

export const dedupRepo = {
  /** Appends a key to the log; its rowid. */
  appendKey(handle: Handle, sourceId: string, key: Uint8Array, expiresAt: number): number {
    return Number(statements(handle).append.run(sourceId, key, expiresAt).lastInsertRowid);
  },
  /** The row `id`, or null (never written, rolled back, swept or forgotten). */
  keyRow(handle: Handle, id: number): KeyRow | null {
    const row = statements(handle).byId.get(id);
    return row && { id, sourceId: row.source_id, key: row.key, expiresAt: row.expires_at };
  },
  /** Every row of the log, newest first, one at a time (the start's load). */
  *everyKey(handle: Handle): Generator<KeyRow> {
    for (const row of statements(handle).everyRow.iterate()) {
      yield { id: row.id, sourceId: row.source_id, key: row.key, expiresAt: row.expires_at };
    }
  },
  /** Deletes row `id` if it has expired at `now`; true when it went. */
  deleteIfExpired(handle: Handle, id: number, now: number): boolean {
    return statements(handle).deleteExpired.run(id, now).changes > 0;
  },
  deleteKey(handle: Handle, id: number): void {
    statements(handle).deleteRow.run(id);
  },
  /** Adds `total` ingests, `duplicates` of them rejected, to the source's counter for `hourStart`. */
  countIngests(
    handle: Handle,
    sourceId: string,
    hourStart: number,
    total: number,
    duplicates: number,
  ): void {
    statements(handle).count.run(sourceId, hourStart, total, duplicates);
  },
  /** Counts one ingest refused for its signature in the source's counter for `hourStart`. */
  countUnverified(handle: Handle, sourceId: string, hourStart: number): void {
    statements(handle).countUnverified.run(sourceId, hourStart);
  },
  /** Sums the counters of the hours starting at or after `fromHour`. */
  totals(handle: Handle, sourceId: string, fromHour: number): CounterTotals {
    const row = statements(handle).totals.get(sourceId, fromHour);
    return {
      totalRequests: row?.total ?? 0,
      duplicatesRejected: row?.duplicates ?? 0,
      rejectedUnverified: row?.unverified ?? 0,
    };
  },
  /**
   * Drops a source's keys and counters (the source is gone). The log has no index on the source,
   * so this walks it once: deleting a source is rare, an index would cost every ingest.
   */
  forgetSource(handle: Handle, sourceId: string): void {
    const s = statements(handle);
    s.forgetKeys.run(sourceId);
    s.forgetCounters.run(sourceId);
  },
};

export type DedupRepo = typeof dedupRepo;
