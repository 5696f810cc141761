import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { debugEndpoints } from "../endpoints/endpoints.table.ts";

/**
 * Captured requests, stored byte-exact (decisions.md §6). Ids are UUIDv7, so ordering by id is
 * ordering by capture time; lists read newest first through the (endpoint_id, id) index, and
 * retention deletes oldest first through it. No other index: each one costs every capture
 * (~5 % of the capture rate for an (endpoint_id, created_at) index; docs/performance.md).
 */
export const capturedRequests = sqliteTable(
  "captured_requests",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => debugEndpoints.id, { onDelete: "cascade" }),
    method: text("method").notNull(),
    /** The sub-path after the slug, "" when none; always starts with "/" otherwise. */
    path: text("path").notNull(),
    queryString: text("query_string").notNull(),
    /**
     * JSON array of [name, value] pairs in the order received: the headers' one stored form. The
     * lowercased object (repeats joined with ", ") is derived from it when read (migration 0020).
     */
    rawHeaders: text("raw_headers").notNull(),
    body: blob("body", { mode: "buffer" }).notNull(),
    contentType: text("content_type"),
    size: integer("size").notNull(),
    remoteIp: text("remote_ip"),
    status: integer("status").notNull(),
    /** Signature verdict (decisions.md §15): valid, invalid or missing; null: not configured. */
    verificationStatus: text("verification_status"),
    /** Why it is not valid, in words a user understands. */
    verificationReason: text("verification_reason"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("captured_requests_endpoint_idx").on(t.endpointId, t.id)],
);

/**
 * How far the search index (migration 0004's FTS5 table) has caught up with captured_requests:
 * every row with a rowid up to `indexed_through` is indexed. One row. Captures are indexed after
 * their commit, in chunks, and before any search reads the index (migration 0016).
 */
export const capturedRequestsSearchMark = sqliteTable("captured_requests_search_mark", {
  id: integer("id").primaryKey(),
  indexedThrough: integer("indexed_through").notNull(),
});

/**
 * Captures an endpoint refused for its plan's rate limit (429) or for size (413): counted so the
 * operator sees what a sender lost (a 429 is otherwise visible only to the sender). Written in
 * batches by the capture tally, never on the refusal path itself.
 */
export const captureRefusals = sqliteTable("capture_refusals", {
  endpointId: text("endpoint_id")
    .primaryKey()
    .references(() => debugEndpoints.id, { onDelete: "cascade" }),
  rateLimited: integer("rate_limited").notNull().default(0),
  tooLarge: integer("too_large").notNull().default(0),
  lastRefusedAt: text("last_refused_at"),
});
