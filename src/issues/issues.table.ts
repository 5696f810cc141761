import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";
import { destinations } from "../routing/routing.table.ts";

/**
 * Failed deliveries of one (bridge, destination, error_type, error_code), grouped (interface.md
 * "Issue"). An issue goes with its destination (and so with its bridge): it describes a route
 * that no longer exists once they are deleted.
 */
export const issues = sqliteTable(
  "issues",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    bridgeId: text("bridge_id").notNull(),
    destinationId: text("destination_id")
      .notNull()
      .references(() => destinations.id, { onDelete: "cascade" }),
    status: text("status", { enum: ["open", "work_in_progress", "closed"] }).notNull(),
    errorType: text("error_type").notNull(),
    errorCode: text("error_code").notNull(),
    errorMessage: text("error_message").notNull(),
    occurrenceCount: integer("occurrence_count").notNull(),
    firstOccurrenceAt: text("first_occurrence_at").notNull(),
    lastOccurrenceAt: text("last_occurrence_at").notNull(),
    openedAt: text("opened_at").notNull(),
    resolvedAt: text("resolved_at"),
    lastSuccessAt: text("last_success_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    // At most one issue that is not closed per failure pattern, whatever runs at once. The
    // destination leads so a success can find its destination's unclosed issues by it.
    uniqueIndex("issues_unclosed_pattern_unique")
      .on(t.destinationId, t.errorType, t.errorCode, t.bridgeId, t.organizationId)
      .where(sql`status <> 'closed'`),
    index("issues_pattern_idx").on(t.destinationId, t.errorType, t.errorCode, t.status),
    index("issues_org_idx").on(t.organizationId, t.lastOccurrenceAt),
    // open_for_days reads each organization's oldest unclosed issues on their own.
    index("issues_unclosed_opened_idx")
      .on(t.organizationId, t.openedAt)
      .where(sql`status <> 'closed'`),
    index("issues_closed_resolved_idx").on(t.resolvedAt).where(sql`status = 'closed'`),
  ],
);

/** The latest few failed attempts of an issue, copied when they joined it (shown by GET one). */
export const issueSamples = sqliteTable(
  "issue_samples",
  {
    /** The attempt's id. */
    id: text("id").primaryKey(),
    issueId: text("issue_id")
      .notNull()
      .references(() => issues.id, { onDelete: "cascade" }),
    eventId: text("event_id").notNull(),
    deliveryId: text("delivery_id").notNull(),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    responseExcerpt: text("response_excerpt").notNull(),
    errorType: text("error_type").notNull(),
    errorCode: text("error_code").notNull(),
    errorMessage: text("error_message").notNull(),
    occurredAt: text("occurred_at").notNull(),
  },
  (t) => [index("issue_samples_issue_idx").on(t.issueId, t.occurredAt)],
);

/**
 * Issues by status across organizations, kept by triggers on `issues` (cascades included):
 * /metrics reads three rows instead of grouping every issue ever kept.
 */
export const issueStatusCounts = sqliteTable("issue_status_counts", {
  status: text("status").primaryKey(),
  n: integer("n").notNull(),
});
