import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";
import { capturedRequests } from "../capture/capture.table.ts";
import { debugEndpoints } from "../endpoints/endpoints.table.ts";

/**
 * Per-endpoint automations (interface.md, Action): run in `position` order on every capture.
 * `config` is the type's JSON object, checked against the type's schema on every write.
 */
export const endpointActions = sqliteTable(
  "endpoint_actions",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => debugEndpoints.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    name: text("name").notNull(),
    config: text("config").notNull(),
    position: integer("position").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("endpoint_actions_endpoint_idx").on(t.endpointId, t.position)],
);

/**
 * One run of an endpoint's chain on one captured request: the per-action results as a JSON
 * array. Deleted with the request (cascade), so retention, emptying and endpoint deletion need
 * no step of their own.
 */
export const actionRuns = sqliteTable(
  "action_runs",
  {
    id: text("id").primaryKey(),
    requestId: text("request_id")
      .notNull()
      .references(() => capturedRequests.id, { onDelete: "cascade" }),
    endpointId: text("endpoint_id").notNull(),
    /** `capture` (the chain the capture ran) or `manual` (run again through the API). */
    trigger: text("trigger").notNull(),
    results: text("results").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("action_runs_request_idx").on(t.requestId, t.id)],
);

/** Values `store_variable` persisted for an endpoint, read by later captures as `$name$`. */
export const endpointVariables = sqliteTable(
  "endpoint_variables",
  {
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => debugEndpoints.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** JSON text of the value (numbers stay numbers, so a counter can count). */
    value: text("value").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.name] })],
);

/**
 * Captures whose chain has not run yet: written in the capture's own group-commit transaction
 * (no extra fsync) and deleted in the transaction that records the run. A row left after a crash
 * is a run still owed; the recovery job runs it.
 */
export const actionRunsDue = sqliteTable("action_runs_due", {
  requestId: text("request_id")
    .primaryKey()
    .references(() => capturedRequests.id, { onDelete: "cascade" }),
  endpointId: text("endpoint_id").notNull(),
  organizationId: text("organization_id").notNull(),
  createdAt: text("created_at").notNull(),
  /**
   * PostgreSQL: until when (server clock, epoch ms) the node running the capture's chain holds
   * the run; recovery takes a run only once its lease lapsed. Unused on SQLite (one process).
   */
  leaseUntil: integer("lease_until"),
});
