import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Keys seen per source (interface.md "Sources and deduplication"): SHA-256 hex of the canonical
 * encoding, kept until `expires_at` (epoch ms). The primary key is what makes the check and the
 * insert one atomic statement (ON CONFLICT); the expiry index lets the sweep delete in batches.
 */
export const dedupKeys = sqliteTable(
  "dedup_keys",
  {
    sourceId: text("source_id").notNull(),
    key: text("key").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.key] }),
    index("dedup_keys_expires_idx").on(t.expiresAt),
  ],
);

/**
 * Ingest counters per source and hour (decisions.md §12 stats): a period's figures are the sum
 * of at most 720 rows found by the primary key, never a scan of events.
 */
export const dedupCounters = sqliteTable(
  "dedup_counters",
  {
    sourceId: text("source_id").notNull(),
    /** Start of the hour, epoch ms. */
    hourStart: integer("hour_start").notNull(),
    totalRequests: integer("total_requests").notNull().default(0),
    duplicatesRejected: integer("duplicates_rejected").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.hourStart] })],
);
