import {
  blob,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/** Where webhooks arrive (`/in/{slug}`); deduplication_config is stored validated, as JSON. */
export const sources = sqliteTable(
  "sources",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type").notNull(),
    slug: text("slug").notNull(),
    deduplicationConfig: text("deduplication_config"),
    /** Inbound signature check (decisions.md §15): JSON with the secret sealed; null: none. */
    verification: text("verification"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("sources_slug_unique").on(t.slug),
    index("sources_org_idx").on(t.organizationId, t.createdAt),
    // Names are unique per organization (decisions §15); the index, not a check, holds under races.
    uniqueIndex("sources_org_name_unique").on(t.organizationId, t.name),
  ],
);

/** A source's route to its destinations; paused bridges store events without delivering them. */
export const bridges = sqliteTable(
  "bridges",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    sourceId: text("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    status: text("status", { enum: ["active", "paused"] }).notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("bridges_org_idx").on(t.organizationId, t.createdAt),
    index("bridges_source_idx").on(t.sourceId),
  ],
);

/**
 * A bridge's destination. Type-specific fields are nullable columns; the signing secret (http
 * only) and the one it replaced are sealed with the row id as associated data.
 */
export const destinations = sqliteTable(
  "destinations",
  {
    id: text("id").primaryKey(),
    bridgeId: text("bridge_id")
      .notNull()
      .references(() => bridges.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull(),
    name: text("name").notNull(),
    type: text("type", { enum: ["http", "slack", "discord", "telegram"] }).notNull(),
    priority: text("priority", { enum: ["normal", "high"] }).notNull(),
    url: text("url"),
    method: text("method"),
    headers: text("headers"),
    maxRetries: integer("max_retries").notNull(),
    webhookUrl: text("webhook_url"),
    botToken: text("bot_token"),
    chatId: text("chat_id"),
    filters: text("filters").notNull(),
    transformationId: text("transformation_id"),
    /** http: the sub-path and query after `/in/{slug}` are appended to `url` (decisions §15). */
    pathForwarding: integer("path_forwarding", { mode: "boolean" }).notNull().default(true),
    signingSecret: text("signing_secret"),
    previousSigningSecret: text("previous_signing_secret"),
    /** Epoch ms until which the replaced secret still signs (24 h after a rotation). */
    previousSecretUntil: integer("previous_secret_until"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("destinations_bridge_idx").on(t.bridgeId, t.createdAt)],
);

/** One ingested request, stored byte-exact; written once, never updated (its state is below). */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    sourceId: text("source_id").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    queryString: text("query_string").notNull(),
    /** The headers as received, ordered pairs; the lowercased object is derived when read. */
    rawHeaders: text("raw_headers").notNull(),
    body: blob("body", { mode: "buffer" }).notNull(),
    createdAt: text("created_at").notNull(),
    /**
     * A filtered event's reasons, JSON `[{destinationId, filter, path}]`, known when it arrives
     * (so written with the row, never updated); NULL for every other event.
     */
    filteredBy: text("filtered_by"),
  },
  (t) => [
    index("events_org_created_idx").on(t.organizationId, t.createdAt),
    index("events_source_idx").on(t.sourceId, t.createdAt),
    index("events_created_idx").on(t.createdAt),
  ],
);

/**
 * Where an event stands on its way out, kept off the wide event row: every ended delivery
 * updates these few bytes (many to a page) instead of rewriting the row that holds the body.
 * `open_deliveries` counts the event's deliveries not yet ended, so a delivered attempt knows
 * whether it was the last one without reading its siblings.
 */
export const eventStates = sqliteTable("event_states", {
  eventId: text("event_id")
    .primaryKey()
    .references(() => events.id, { onDelete: "cascade" }),
  status: text("status", {
    enum: ["pending", "delivered", "failed", "filtered", "paused", "unrouted"],
  }).notNull(),
  openDeliveries: integer("open_deliveries").notNull(),
  /** Why an event failed before any delivery (e.g. its filters ran out of budget); else null. */
  statusReason: text("status_reason"),
});

/**
 * The bridges an event went through (one source may have several): what `GET /events?bridge_id=`
 * reads. Kept in its own table, not derived from deliveries, because delivery rows age out and
 * a filtered or paused event has none. Rows go with their event (retention) or their bridge.
 */
export const eventBridges = sqliteTable(
  "event_bridges",
  {
    eventId: text("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    bridgeId: text("bridge_id")
      .notNull()
      .references(() => bridges.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.eventId, t.bridgeId] }),
    index("event_bridges_bridge_idx").on(t.bridgeId, t.eventId),
  ],
);

/**
 * Delivery outcomes per destination and UTC day (docs/delivery.md, "Delivery health"): what
 * health figures and status pages read, kept 400 days, long after the deliveries and attempts
 * themselves are swept. One upsert of this narrow row per recorded attempt, in the transaction
 * that records it. No foreign keys: the history of a deleted destination still counts in its
 * bridge's days, and the hot path pays no parent lookup.
 */
export const deliveryHealthDays = sqliteTable(
  "delivery_health_days",
  {
    destinationId: text("destination_id").notNull(),
    /** YYYY-MM-DD, UTC: the day the outcome was recorded. */
    day: text("day").notNull(),
    organizationId: text("organization_id").notNull(),
    bridgeId: text("bridge_id").notNull(),
    /** Deliveries that ended this day (delivered or given up), each once. */
    attempted: integer("attempted").notNull(),
    delivered: integer("delivered").notNull(),
    /** The last failed attempt of the day (epoch ms), retries included; null: none failed. */
    lastFailureAt: integer("last_failure_at"),
  },
  (t) => [
    primaryKey({ columns: [t.destinationId, t.day] }),
    index("delivery_health_days_bridge_idx").on(t.bridgeId, t.day),
    index("delivery_health_days_day_idx").on(t.day),
  ],
);
