import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/**
 * Maintenance windows (decisions.md §15): one-off (`starts_at`, `ends_at`) or recurring (`cron`,
 * `duration_minutes`, `timezone`). `monitor_ids` is a JSON array: a window is read whole and the
 * room keeps every window in memory, so no query ever joins on it.
 */
export const maintenanceWindows = sqliteTable(
  "maintenance_windows",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description"),
    monitorIds: text("monitor_ids").notNull(),
    startsAt: text("starts_at"),
    endsAt: text("ends_at"),
    cron: text("cron"),
    durationMinutes: integer("duration_minutes"),
    timezone: text("timezone"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("maintenance_windows_org_created").on(t.organizationId, t.createdAt)],
);
