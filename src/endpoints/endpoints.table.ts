import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/**
 * Debug endpoints of both API families (decisions.md §12: one resource). Anonymous endpoints are
 * rows without an organization, reached with a token whose SHA-256 is kept, until `expires_at`.
 *
 * Deleting and emptying are marks, written in one short transaction and honoured by every read
 * at once; the stored requests they hide are drained in bounded batches afterwards (capture's
 * `requests.drain` job). A deleted endpoint keeps its row, under a slug no sender can reach, until
 * its last request is gone.
 */
export const debugEndpoints = sqliteTable(
  "debug_endpoints",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").references(() => organizations.id, {
      onDelete: "cascade",
    }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    status: text("status", { enum: ["active", "paused"] }).notNull(),
    /** Custom answer to senders (decisions.md §6); null columns mean the default answer. */
    responseStatus: integer("response_status"),
    responseHeaders: text("response_headers"),
    responseBody: text("response_body"),
    responseDelayMs: integer("response_delay_ms").notNull().default(0),
    forwardUrl: text("forward_url"),
    /** Inbound signature check (decisions.md §15): JSON with the secret sealed; null: none. */
    verification: text("verification"),
    anonymousTokenHash: text("anonymous_token_hash"),
    expiresAt: text("expires_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    /** Visible stored requests: kept by capture's group commit, retention and emptying. */
    requestCount: integer("request_count").notNull().default(0),
    /** Emptied: requests with an id at or below this (UUIDv7, time ordered) are gone for readers. */
    clearedThroughId: text("cleared_through_id"),
    /** Deleted: gone for every reader and sender; the row goes once its requests are drained. */
    deletedAt: text("deleted_at"),
    /** 1 while hidden requests are left to drain (after a delete or an empty). */
    drainPending: integer("drain_pending").notNull().default(0),
  },
  (t) => [
    uniqueIndex("debug_endpoints_slug_unique").on(t.slug),
    index("debug_endpoints_org_idx").on(t.organizationId, t.createdAt),
    index("debug_endpoints_expires_idx").on(t.expiresAt),
    index("debug_endpoints_drain_idx").on(t.id).where(sql`${t.drainPending} = 1`),
  ],
);
