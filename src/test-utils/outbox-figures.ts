import type { Database } from "bun:sqlite";

/**
 * The outbox's /metrics figures counted over the whole table, as the scrape once did: the oracle
 * the trigger-kept figures are checked against.
 */
export function countedOutboxFigures(sqlite: Database, now: number) {
  const queue = sqlite
    .query<{ queued: number; due: number }, [number]>(
      `SELECT
         (SELECT count(*) FROM deliveries WHERE next_attempt_at IS NOT NULL) AS queued,
         (SELECT count(*) FROM deliveries WHERE next_attempt_at <= ?1
            AND (locked_until IS NULL OR locked_until <= ?1)) AS due`,
    )
    .get(now) ?? { queued: 0, due: 0 };
  const breakers = sqlite
    .query<{ phase: string; n: number }, []>(
      "SELECT phase, count(*) AS n FROM delivery_breakers GROUP BY phase ORDER BY phase",
    )
    .all();
  return { ...queue, breakers };
}

/** Issues by status counted over the table, as the scrape once did. */
export function countedIssueFigures(sqlite: Database) {
  return sqlite
    .query<{ status: string; n: number }, []>(
      "SELECT status, count(*) AS n FROM issues GROUP BY status ORDER BY status",
    )
    .all();
}
