import type { SQL } from "bun";

/**
 * Live dedup keys shared by the nodes of one PostgreSQL database (dedup.keys.postgres.ts). The
 * SQLite path stays `createDedupKeys` (dedup.keys.ts): the append-only log read through one
 * process's memory, which is only right because one server owns its data dir. Here the database
 * decides alone: a key is a row unique per source, taken by one insert, so of two nodes offered
 * the same duplicate at once exactly one accepts it. Times are the app's clock in epoch ms, as
 * on SQLite (a key's expiry is part of the source's configuration, not a lease).
 */
export interface SharedDedupKeys {
  /**
   * In the caller's transaction (`tx`, the one writing the event): "fresh" when the key was free
   * or its row had expired by `now` (the row is then this key's until `expiresAt`), "duplicate"
   * when a live row holds it. A concurrent claim of the same key waits for the first one's
   * transaction: a commit makes it a duplicate, a rollback lets it take the key.
   */
  claim(
    tx: SQL,
    sourceId: string,
    key: Uint8Array,
    expiresAt: number,
    now: number,
  ): Promise<"fresh" | "duplicate">;
  /** Deletes expired keys, `batch` rows per statement; how many went. */
  sweep(now: number, batch?: number): Promise<number>;
  /** In the transaction deleting a source: its keys go with it. */
  forget(tx: SQL, sourceId: string): Promise<void>;
}
