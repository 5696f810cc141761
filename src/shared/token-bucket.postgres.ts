import type { SQL } from "bun";
import type { SharedKeyedLimiter } from "./token-bucket.store.ts";
import type { BucketRule } from "./token-bucket.ts";

/** Answer for a bucket that never refills (rate 0): ask again in an hour, as in memory. */
const NEVER_SECONDS = 3600;
/** The server's clock in epoch ms: buckets refill on one clock, whichever node takes. */
const SERVER_NOW = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/**
 * Token buckets in `rate_buckets`, one row per `name:key`, taken by ONE statement: an upsert
 * whose update refills the bucket from its last take and takes a token only where one is there
 * (`WHERE refilled >= 1`). Row locking serialises takes of one key across nodes; a row comes back
 * exactly when the take was allowed. A refusal reads the bucket once more to say how long to
 * wait (refusals are the rare path). Chosen over advisory locks, which need a transaction and
 * three round trips per take (docs/performance.md, "PostgreSQL mode").
 */
export function createPostgresKeyedLimiter(
  sql: SQL,
  name: string,
  rule: BucketRule,
): SharedKeyedLimiter {
  const refilled = `least($2::float8, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * $3::float8 / 1000)`;
  const takeSql = `
    INSERT INTO rate_buckets AS b (key, tokens, updated_at)
    VALUES ($1, $2::float8 - 1, ${SERVER_NOW})
    ON CONFLICT (key) DO UPDATE SET tokens = ${refilled} - 1,
      updated_at = greatest(b.updated_at, excluded.updated_at)
      WHERE ${refilled} >= 1
    RETURNING 1`;
  const tokensSql = `
    SELECT least($2::float8, tokens + greatest(0, ${SERVER_NOW} - updated_at) * $3::float8 / 1000) AS tokens
      FROM rate_buckets WHERE key = $1`;
  const prefix = `${name}:`;
  const fullAfterMs = rule.ratePerSecond > 0 ? (rule.burst * 1000) / rule.ratePerSecond : null;

  return {
    async take(key) {
      const values = [prefix + key, rule.burst, rule.ratePerSecond];
      const taken = await sql.unsafe(takeSql, values);
      if (taken.length === 1) return 0;
      if (rule.ratePerSecond <= 0) return NEVER_SECONDS;
      const [row] = await sql.unsafe<{ tokens: number }[]>(tokensSql, values);
      const tokens = row?.tokens ?? rule.burst;
      return Math.max(1, Math.ceil((1 - tokens) / rule.ratePerSecond));
    },
    async sweep() {
      if (fullAfterMs === null) return 0;
      const gone = await sql.unsafe(
        `DELETE FROM rate_buckets WHERE key LIKE $1 AND updated_at < ${SERVER_NOW} - $2::bigint RETURNING 1`,
        [
          `${prefix.replaceAll("\\", "\\\\").replaceAll("%", "\\%").replaceAll("_", "\\_")}%`,
          Math.ceil(fullAfterMs),
        ],
      );
      return gone.length;
    },
  };
}
