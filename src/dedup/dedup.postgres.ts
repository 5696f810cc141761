import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { SharedDedupKeys } from "./dedup.keys.store.ts";
import type { CheckDedupPostgres, DedupStore } from "./dedup.store.ts";

const HOUR_MS = 3_600_000;

/** Bun's client returns bigint sums as strings (or null over no rows). */
const count = (value: unknown) => (value === null || value === undefined ? 0 : Number(value));

async function addIngests(
  sql: PostgresDb["sql"] | PostgresTx,
  sourceId: string,
  hourStart: number,
  total: number,
  duplicates: number,
): Promise<void> {
  await sql`
    INSERT INTO dedup_counters (source_id, hour_start, total_requests, duplicates_rejected)
    VALUES (${sourceId}, ${hourStart}, ${total}, ${duplicates})
    ON CONFLICT (source_id, hour_start) DO UPDATE SET
      total_requests = dedup_counters.total_requests + excluded.total_requests,
      duplicates_rejected = dedup_counters.duplicates_rejected + excluded.duplicates_rejected`;
}

/** The dedup counters over PostgreSQL; a source's keys live in the shared keys (`keys`). */
export function createDedupPostgresStore(pg: PostgresDb, keys: SharedDedupKeys): DedupStore {
  const { sql } = pg;
  return {
    countIngests: (sourceId, hourStart, total, duplicates) =>
      addIngests(sql, sourceId, hourStart, total, duplicates),
    countUnverified: async (sourceId, hourStart) => {
      await sql`
        INSERT INTO dedup_counters (source_id, hour_start, rejected_unverified)
        VALUES (${sourceId}, ${hourStart}, 1)
        ON CONFLICT (source_id, hour_start) DO UPDATE SET
          rejected_unverified = dedup_counters.rejected_unverified + 1`;
    },
    totals: async (sourceId, fromHour) => {
      const [row] = await sql`
        SELECT SUM(total_requests) AS total, SUM(duplicates_rejected) AS duplicates,
               SUM(rejected_unverified) AS unverified
          FROM dedup_counters WHERE source_id = ${sourceId} AND hour_start >= ${fromHour}`;
      return {
        totalRequests: count(row?.total),
        duplicatesRejected: count(row?.duplicates),
        rejectedUnverified: count(row?.unverified),
      };
    },
    forgetSource: async (sourceId) => {
      await sql.begin((tx) => forgetSourceIn(tx, keys, sourceId));
    },
  };
}

/** In the transaction deleting a source (`tx`): its keys and counters go with it. */
export async function forgetSourceIn(
  tx: PostgresTx,
  keys: SharedDedupKeys,
  sourceId: string,
): Promise<void> {
  await keys.forget(tx, sourceId);
  await tx`DELETE FROM dedup_counters WHERE source_id = ${sourceId}`;
}

/**
 * The ingest's dedup step on PostgreSQL (see CheckDedupPostgres): the key claimed in the shared
 * keys, then the ingest counted, in the event's transaction. The counter is written last so its
 * row is locked for the shortest time a busy source's concurrent ingests wait on it.
 */
export function createCheckDedupPostgres(
  keys: SharedDedupKeys,
  now: () => number,
): CheckDedupPostgres {
  return async (tx, ticket) => {
    const at = now();
    const duplicate =
      ticket.key !== null &&
      (await keys.claim(tx, ticket.sourceId, ticket.key, at + ticket.ttlMs, at)) === "duplicate";
    await addIngests(tx, ticket.sourceId, at - (at % HOUR_MS), 1, duplicate ? 1 : 0);
    return duplicate;
  };
}
