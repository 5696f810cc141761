import type { SQL } from "bun";
import type { SharedDedupKeys } from "./dedup.keys.store.ts";
import { SWEEP_BATCH } from "./dedup.keys.ts";

/**
 * Dedup keys on PostgreSQL: one `INSERT … ON CONFLICT DO UPDATE … WHERE expired` per key, so
 * taking a free key, taking back an expired one and refusing a live one are one atomic
 * statement, however many nodes are asked at once.
 */
export function createPostgresDedupKeys(sql: SQL): SharedDedupKeys {
  return {
    async claim(tx, sourceId, key, expiresAt, now) {
      const taken = await tx`
        INSERT INTO dedup_shared_keys (source_id, key, expires_at)
        VALUES (${sourceId}, ${Buffer.from(key.buffer, key.byteOffset, key.byteLength)}, ${expiresAt})
        ON CONFLICT (source_id, key) DO UPDATE SET expires_at = excluded.expires_at
          WHERE dedup_shared_keys.expires_at <= ${now}
        RETURNING 1`;
      return taken.length === 1 ? "fresh" : "duplicate";
    },
    async sweep(now, batch = SWEEP_BATCH) {
      let removed = 0;
      for (;;) {
        // Short statements, each its own transaction: ingests are never held behind a sweep.
        const gone = await sql`
          DELETE FROM dedup_shared_keys WHERE ctid IN (
            SELECT ctid FROM dedup_shared_keys WHERE expires_at <= ${now} LIMIT ${batch})
          RETURNING 1`;
        removed += gone.length;
        if (gone.length < batch) return removed;
      }
    },
    async forget(tx, sourceId) {
      await tx`DELETE FROM dedup_shared_keys WHERE source_id = ${sourceId}`;
    },
  };
}
