import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/**
 * Debug endpoints of both API families (decisions.md §12: one resource). Anonymous endpoints are
 * rows without an organization, reached with a token whose SHA-256 is kept, until `expires_at`.
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
    anonymousTokenHash: text("anonymous_token_hash"),
    expiresAt: text("expires_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("debug_endpoints_slug_unique").on(t.slug),
    index("debug_endpoints_org_idx").on(t.organizationId, t.createdAt),
    index("debug_endpoints_expires_idx").on(t.expiresAt),
  ],
);
