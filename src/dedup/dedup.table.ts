import { blob, index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Keys seen per source (interface.md "Sources and deduplication"), as an APPEND-ONLY log: the
 * SHA-256 of the canonical encoding (32 bytes), kept until `expires_at` (epoch ms). No index
 * but the rowid: a new key is written at the end of the table, so a group commit dirties a few
 * pages however many keys are live, where a (source, key) B-tree dirtied a random page per key.
 * Lookups go through the in-memory index built from this table at start (dedup.key-index.ts);
 * the row is what a lookup confirms and what a restart reloads.
 */
export const dedupKeyLog = sqliteTable("dedup_key_log", {
  id: integer("id").primaryKey(),
  sourceId: text("source_id").notNull(),
  key: blob("key", { mode: "buffer" }).notNull(),
  expiresAt: integer("expires_at").notNull(),
});

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
    /** Ingests refused with 401 for a missing or wrong signature (not in total_requests). */
    rejectedUnverified: integer("rejected_unverified").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.sourceId, t.hourStart] })],
);

/**
 * Live keys shared by the nodes of one PostgreSQL database: one row per (source, key), so a key
 * is accepted by whichever node inserts it first (dedup.keys.postgres.ts). A SQLite server keeps
 * its keys in `dedup_key_log` and its memory instead, and leaves this table empty.
 */
export const dedupSharedKeys = sqliteTable(
  "dedup_shared_keys",
  {
    sourceId: text("source_id").notNull(),
    key: blob("key", { mode: "buffer" }).notNull(),
    /** Epoch ms: past it the key is free to be accepted again. */
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.key] }),
    index("dedup_shared_keys_expires_idx").on(t.expiresAt),
  ],
);
