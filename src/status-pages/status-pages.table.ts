import {
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";
import { monitors } from "../monitors/monitors.table.ts";

/**
 * Status pages (decisions.md §9, §15). The page's groups are small and always read whole, so
 * they are JSON text on the page. `slug` and `custom_domain` are unique across the instance:
 * both address a public page without credentials.
 */
export const statusPages = sqliteTable(
  "status_pages",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    slug: text("slug").notNull().unique(),
    description: text("description"),
    logoUrl: text("logo_url"),
    primaryColor: text("primary_color").notNull(),
    showServiceBranding: integer("show_service_branding").notNull().default(1),
    /** Offers "Get updates by email" on the public page (needs the server's mail settings). */
    allowSubscribers: integer("allow_subscribers").notNull().default(0),
    customDomain: text("custom_domain").unique(),
    /** `[{name, order}]` as JSON text. */
    groups: text("groups").notNull().default("[]"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("status_pages_org_created").on(t.organizationId, t.createdAt)],
);

/** A monitor shown on a page; deleting the monitor takes it off every page. */
export const statusPageMonitors = sqliteTable(
  "status_page_monitors",
  {
    statusPageId: text("status_page_id")
      .notNull()
      .references(() => statusPages.id, { onDelete: "cascade" }),
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    displayName: text("display_name"),
    displayOrder: integer("display_order").notNull().default(0),
    groupName: text("group_name"),
  },
  (t) => [primaryKey({ columns: [t.statusPageId, t.monitorId] })],
);

/**
 * A delivery component: a bridge or a destination of the page's organization. Those live in
 * the routing room, so there is no foreign key: one that has gone is left out of the render.
 */
export const statusPageComponents = sqliteTable(
  "status_page_components",
  {
    id: text("id").primaryKey(),
    statusPageId: text("status_page_id")
      .notNull()
      .references(() => statusPages.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    targetId: text("target_id").notNull(),
    displayName: text("display_name"),
    displayOrder: integer("display_order").notNull().default(0),
    groupName: text("group_name"),
  },
  (t) => [index("status_page_components_page").on(t.statusPageId)],
);

/** Incidents a page's owners post (decisions.md §15); `monitor_ids` is JSON text. */
export const statusPageIncidents = sqliteTable(
  "status_page_incidents",
  {
    id: text("id").primaryKey(),
    statusPageId: text("status_page_id")
      .notNull()
      .references(() => statusPages.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    impact: text("impact").notNull(),
    status: text("status").notNull(),
    monitorIds: text("monitor_ids").notNull().default("[]"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    resolvedAt: text("resolved_at"),
  },
  (t) => [index("status_page_incidents_page_created").on(t.statusPageId, t.createdAt)],
);

/** Each step of an incident, the first message included. */
export const statusPageIncidentUpdates = sqliteTable(
  "status_page_incident_updates",
  {
    id: text("id").primaryKey(),
    incidentId: text("incident_id")
      .notNull()
      .references(() => statusPageIncidents.id, { onDelete: "cascade" }),
    status: text("status").notNull(),
    message: text("message").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("status_page_incident_updates_incident").on(t.incidentId, t.createdAt)],
);

/**
 * A page's email subscribers (double opt-in): `confirmed_at` null until the mailed link is
 * followed. `link_base` is the address the visitor subscribed on, for the links of later mails.
 */
export const statusPageSubscribers = sqliteTable(
  "status_page_subscribers",
  {
    id: text("id").primaryKey(),
    statusPageId: text("status_page_id")
      .notNull()
      .references(() => statusPages.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    linkBase: text("link_base").notNull(),
    confirmedAt: text("confirmed_at"),
    /** At most one confirmation mail per address per hour. */
    confirmationSentAt: text("confirmation_sent_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("status_page_subscribers_page_email").on(t.statusPageId, t.email),
    index("status_page_subscribers_page_created").on(t.statusPageId, t.createdAt),
    // The once-an-hour confirmation limit holds per address across every page of the instance.
    index("status_page_subscribers_email").on(t.email, t.confirmationSentAt),
  ],
);

/**
 * A mail owed to one subscriber, written with its cause (an incident, an update, a subscription)
 * and sent by the delivery outbox (kind "status_mail"). Rendered when written, so a later edit
 * of the incident does not change what was announced. The row outlives its subscriber (then
 * nothing is sent) so the retention sweep finds it, and its deliveries, by age.
 */
export const statusPageMails = sqliteTable(
  "status_page_mails",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    subscriberId: text("subscriber_id").references(() => statusPageSubscribers.id, {
      onDelete: "set null",
    }),
    kind: text("kind").notNull(),
    subject: text("subject").notNull(),
    body: text("body").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("status_page_mails_org_created").on(t.organizationId, t.createdAt)],
);

/**
 * Maintenance occurrences whose start a page has announced to its subscribers: one row per
 * page, window and start, written with the mails, so a start is announced once.
 */
export const statusPageMaintenanceNotices = sqliteTable(
  "status_page_maintenance_notices",
  {
    statusPageId: text("status_page_id")
      .notNull()
      .references(() => statusPages.id, { onDelete: "cascade" }),
    windowId: text("window_id").notNull(),
    startsAt: text("starts_at").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.statusPageId, t.windowId, t.startsAt] })],
);
