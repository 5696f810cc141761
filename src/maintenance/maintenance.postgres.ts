import type { TransactionSQL } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import type { MaintenanceStore } from "./maintenance.store.ts";

export interface MaintenancePostgresOptions {
  /** Hears a new window inside its transaction (the async twin of the SQLite hook). */
  windowCreated?: (tx: TransactionSQL, window: MaintenanceWindow) => Promise<void>;
}

type Row = Record<string, unknown>;

const windowOfRow = (row: Row): MaintenanceWindow => ({
  id: row.id as string,
  organizationId: row.organization_id as string,
  title: row.title as string,
  description: row.description as string | null,
  monitorIds: JSON.parse(row.monitor_ids as string) as string[],
  startsAt: row.starts_at as string | null,
  endsAt: row.ends_at as string | null,
  cron: row.cron as string | null,
  durationMinutes: row.duration_minutes as number | null,
  timezone: row.timezone as string | null,
  createdAt: row.created_at as string,
  updatedAt: row.updated_at as string,
});

/**
 * The maintenance room's store over PostgreSQL. SQLite lists an organization's windows by
 * `created_at DESC, rowid DESC`; ids are UUIDv7 (time-ordered), so `id DESC` keeps the order of
 * windows created in one millisecond.
 */
export function createMaintenancePostgresStore(
  pg: PostgresDb,
  options: MaintenancePostgresOptions = {},
): MaintenanceStore {
  const { sql } = pg;
  const { windowCreated } = options;
  return {
    insertWithinLimit: (w, limit) =>
      sql.begin(async (tx) => {
        // Creates of one organization take turns, so two cannot both pass the count.
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`maintenance:${w.organizationId}`}))`;
        const [{ n }] = await tx`
          SELECT count(*)::int AS n FROM maintenance_windows WHERE organization_id = ${w.organizationId}`;
        if (n >= limit) return "limit_reached" as const;
        await tx`
          INSERT INTO maintenance_windows (id, organization_id, title, description, monitor_ids,
            starts_at, ends_at, cron, duration_minutes, timezone, created_at, updated_at)
          VALUES (${w.id}, ${w.organizationId}, ${w.title}, ${w.description},
            ${JSON.stringify(w.monitorIds)}, ${w.startsAt}, ${w.endsAt}, ${w.cron},
            ${w.durationMinutes}, ${w.timezone}, ${w.createdAt}, ${w.updatedAt})`;
        await windowCreated?.(tx, w);
        return "inserted" as const;
      }),
    update: async (w) => {
      const changed = await sql`
        UPDATE maintenance_windows SET title = ${w.title}, description = ${w.description},
          monitor_ids = ${JSON.stringify(w.monitorIds)}, starts_at = ${w.startsAt},
          ends_at = ${w.endsAt}, cron = ${w.cron}, duration_minutes = ${w.durationMinutes},
          timezone = ${w.timezone}, updated_at = ${w.updatedAt}
        WHERE organization_id = ${w.organizationId} AND id = ${w.id}`;
      return changed.count > 0;
    },
    find: async (organizationId, id) => {
      const [row] = await sql`
        SELECT * FROM maintenance_windows WHERE organization_id = ${organizationId} AND id = ${id}`;
      return row ? windowOfRow(row) : null;
    },
    list: async (organizationId) =>
      (
        await sql`SELECT * FROM maintenance_windows WHERE organization_id = ${organizationId}
                  ORDER BY created_at DESC, id DESC`
      ).map(windowOfRow),
    count: async (organizationId) => {
      const [{ n }] = await sql`
        SELECT count(*)::int AS n FROM maintenance_windows WHERE organization_id = ${organizationId}`;
      return n as number;
    },
    all: async () => (await sql`SELECT * FROM maintenance_windows`).map(windowOfRow),
    remove: async (organizationId, id) => {
      const removed = await sql`
        DELETE FROM maintenance_windows WHERE organization_id = ${organizationId} AND id = ${id}`;
      return removed.count > 0;
    },
  };
}
