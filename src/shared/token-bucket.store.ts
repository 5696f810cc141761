/**
 * A keyed limiter whose buckets every node of one PostgreSQL database shares
 * (token-bucket.postgres.ts): the limit holds for the cluster, not once per node. The in-memory
 * `createKeyedLimiter` (token-bucket.ts) stays the SQLite path, where one process is the server.
 */
export interface SharedKeyedLimiter {
  /** Takes one token for `key`; 0 when allowed, else the seconds to wait (≥ 1). */
  take(key: string): Promise<number>;
  /** Deletes the buckets that have refilled completely (they carry no information); how many. */
  sweep(): Promise<number>;
}
