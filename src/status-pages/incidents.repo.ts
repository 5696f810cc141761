import type { Db } from "../db/db.open.ts";
import type { Impact, Incident, IncidentStatus, IncidentUpdate } from "./status-pages.model.ts";

interface IncidentRow {
  id: string;
  status_page_id: string;
  title: string;
  impact: string;
  status: string;
  monitor_ids: string;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
}

interface UpdateRow {
  id: string;
  incident_id: string;
  status: string;
  message: string;
  created_at: string;
}

/** A page's incidents with their updates (oldest update first); every read is by page. */
export function createIncidentsRepo(db: Db) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO status_page_incidents (id, status_page_id, title, impact, status, monitor_ids,
       created_at, updated_at, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const setStatus = sqlite.prepare(
    `UPDATE status_page_incidents SET status = ?, updated_at = ?, resolved_at = ?
     WHERE status_page_id = ? AND id = ?`,
  );
  const insertUpdate = sqlite.prepare(
    `INSERT INTO status_page_incident_updates (id, incident_id, status, message, created_at)
     VALUES (?, ?, ?, ?, ?)`,
  );
  // Open ones whatever their age, resolved ones since a time: what a page and its feed show.
  const since = sqlite.prepare<IncidentRow, [string, string]>(
    `SELECT * FROM status_page_incidents WHERE status_page_id = ?1
       AND (resolved_at IS NULL OR resolved_at >= ?2 OR created_at >= ?2)
     ORDER BY created_at DESC, id DESC`,
  );
  const all = sqlite.prepare<IncidentRow, [string]>(
    "SELECT * FROM status_page_incidents WHERE status_page_id = ? ORDER BY created_at DESC, id DESC",
  );
  const one = sqlite.prepare<IncidentRow, [string, string]>(
    "SELECT * FROM status_page_incidents WHERE status_page_id = ? AND id = ?",
  );
  const updates = sqlite.prepare<UpdateRow, [string]>(
    `SELECT u.* FROM status_page_incident_updates u JOIN status_page_incidents i
       ON i.id = u.incident_id WHERE i.status_page_id = ? ORDER BY u.created_at, u.rowid`,
  );
  const remove = sqlite.prepare(
    "DELETE FROM status_page_incidents WHERE status_page_id = ? AND id = ?",
  );

  const withUpdates = (pageId: string, rows: IncidentRow[]): Incident[] => {
    if (rows.length === 0) return [];
    const byIncident = new Map<string, IncidentUpdate[]>();
    for (const u of updates.all(pageId)) {
      const list = byIncident.get(u.incident_id) ?? [];
      list.push({
        id: u.id,
        status: u.status as IncidentStatus,
        message: u.message,
        createdAt: u.created_at,
      });
      byIncident.set(u.incident_id, list);
    }
    return rows.map((r) => ({
      id: r.id,
      statusPageId: r.status_page_id,
      title: r.title,
      impact: r.impact as Impact,
      status: r.status as IncidentStatus,
      monitorIds: JSON.parse(r.monitor_ids) as string[],
      updates: byIncident.get(r.id) ?? [],
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      resolvedAt: r.resolved_at,
    }));
  };

  return {
    insert(incident: Incident) {
      insert.run(
        incident.id,
        incident.statusPageId,
        incident.title,
        incident.impact,
        incident.status,
        JSON.stringify(incident.monitorIds),
        incident.createdAt,
        incident.updatedAt,
        incident.resolvedAt,
      );
    },
    addUpdate(incident: Incident, update: IncidentUpdate) {
      insertUpdate.run(update.id, incident.id, update.status, update.message, update.createdAt);
      setStatus.run(
        incident.status,
        incident.updatedAt,
        incident.resolvedAt,
        incident.statusPageId,
        incident.id,
      );
    },
    find(pageId: string, id: string): Incident | null {
      const row = one.get(pageId, id);
      return row ? (withUpdates(pageId, [row])[0] ?? null) : null;
    },
    list: (pageId: string) => withUpdates(pageId, all.all(pageId)),
    /** Open incidents, and those resolved or opened since `sinceIso`; newest first. */
    recent: (pageId: string, sinceIso: string) => withUpdates(pageId, since.all(pageId, sinceIso)),
    remove: (pageId: string, id: string) => remove.run(pageId, id).changes > 0,
  };
}

export type IncidentsRepo = ReturnType<typeof createIncidentsRepo>;
