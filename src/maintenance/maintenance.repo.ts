import type { Db } from "../db/db.open.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";

type WindowRow = Omit<MaintenanceWindow, "monitorIds"> & { monitorIds: string };

const COLUMNS = `id, organization_id AS organizationId, title, description, monitor_ids AS monitorIds,
  starts_at AS startsAt, ends_at AS endsAt, cron, duration_minutes AS durationMinutes, timezone,
  created_at AS createdAt, updated_at AS updatedAt`;

const windowOfRow = (row: WindowRow): MaintenanceWindow => ({
  ...row,
  monitorIds: JSON.parse(row.monitorIds) as string[],
});

/** All SQL of the maintenance room; reads and writes are scoped to one organization. */
export function createMaintenanceRepo(db: Db) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO maintenance_windows (id, organization_id, title, description, monitor_ids,
       starts_at, ends_at, cron, duration_minutes, timezone, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = sqlite.prepare(
    `UPDATE maintenance_windows SET title = ?, description = ?, monitor_ids = ?, starts_at = ?,
       ends_at = ?, cron = ?, duration_minutes = ?, timezone = ?, updated_at = ?
     WHERE organization_id = ? AND id = ?`,
  );
  const find = sqlite.prepare<WindowRow, [string, string]>(
    `SELECT ${COLUMNS} FROM maintenance_windows WHERE organization_id = ? AND id = ?`,
  );
  const list = sqlite.prepare<WindowRow, [string]>(
    `SELECT ${COLUMNS} FROM maintenance_windows WHERE organization_id = ?
     ORDER BY created_at DESC, rowid DESC`,
  );
  const count = sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM maintenance_windows WHERE organization_id = ?",
  );
  const all = sqlite.prepare<WindowRow, []>(`SELECT ${COLUMNS} FROM maintenance_windows`);
  const remove = sqlite.prepare(
    "DELETE FROM maintenance_windows WHERE organization_id = ? AND id = ?",
  );
  return {
    insert(w: MaintenanceWindow): void {
      insert.run(
        w.id,
        w.organizationId,
        w.title,
        w.description,
        JSON.stringify(w.monitorIds),
        w.startsAt,
        w.endsAt,
        w.cron,
        w.durationMinutes,
        w.timezone,
        w.createdAt,
        w.updatedAt,
      );
    },
    /** False when the organization has no such window. */
    update(w: MaintenanceWindow): boolean {
      return (
        update.run(
          w.title,
          w.description,
          JSON.stringify(w.monitorIds),
          w.startsAt,
          w.endsAt,
          w.cron,
          w.durationMinutes,
          w.timezone,
          w.updatedAt,
          w.organizationId,
          w.id,
        ).changes > 0
      );
    },
    find(organizationId: string, id: string): MaintenanceWindow | null {
      const row = find.get(organizationId, id);
      return row ? windowOfRow(row) : null;
    },
    /** The organization's windows, newest first. */
    list: (organizationId: string) => list.all(organizationId).map(windowOfRow),
    count: (organizationId: string) => count.get(organizationId)?.n ?? 0,
    /** Every window of every organization: what the in-memory index is built from. */
    all: () => all.all().map(windowOfRow),
    remove: (organizationId: string, id: string) => remove.run(organizationId, id).changes > 0,
  };
}

export type MaintenanceRepo = ReturnType<typeof createMaintenanceRepo>;
