import type { SQL } from "bun";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { IncidentsStore } from "./incidents.store.ts";
import type { Impact, Incident, IncidentStatus, IncidentUpdate } from "./status-pages.model.ts";

type Row = Record<string, unknown>;

async function insertIncident(q: SQL, incident: Incident): Promise<void> {
  await q`
    INSERT INTO status_page_incidents (id, status_page_id, title, impact, status, monitor_ids,
      created_at, updated_at, resolved_at)
    VALUES (${incident.id}, ${incident.statusPageId}, ${incident.title}, ${incident.impact},
      ${incident.status}, ${JSON.stringify(incident.monitorIds)}, ${incident.createdAt},
      ${incident.updatedAt}, ${incident.resolvedAt})`;
}

async function addIncidentUpdate(q: SQL, incident: Incident, update: IncidentUpdate) {
  await q`
    INSERT INTO status_page_incident_updates (id, incident_id, status, message, created_at)
    VALUES (${update.id}, ${incident.id}, ${update.status}, ${update.message}, ${update.createdAt})`;
  await q`
    UPDATE status_page_incidents SET status = ${incident.status},
      updated_at = ${incident.updatedAt}, resolved_at = ${incident.resolvedAt}
    WHERE status_page_id = ${incident.statusPageId} AND id = ${incident.id}`;
}

/**
 * An update (and, opening, its incident) written inside the caller's transaction, so the mails
 * it owes commit with it.
 */
export async function writeIncidentUpdatePostgres(
  tx: PostgresTx,
  incident: Incident,
  update: IncidentUpdate,
  opening: boolean,
): Promise<void> {
  if (opening) await insertIncident(tx, incident);
  await addIncidentUpdate(tx, incident, update);
}

/**
 * Incidents on PostgreSQL, answering as the SQLite repo does. Updates of one instant keep their
 * insertion order through their ids (UUIDv7), where SQLite uses the rowid.
 */
export function createIncidentsPostgresStore(pg: PostgresDb): IncidentsStore {
  const { sql } = pg;

  const withUpdates = async (q: SQL, pageId: string, rows: Row[]): Promise<Incident[]> => {
    if (rows.length === 0) return [];
    const updates: Row[] = await q`
      SELECT u.* FROM status_page_incident_updates u JOIN status_page_incidents i
        ON i.id = u.incident_id WHERE i.status_page_id = ${pageId}
      ORDER BY u.created_at, u.id`;
    const byIncident = new Map<string, IncidentUpdate[]>();
    for (const u of updates) {
      const list = byIncident.get(u.incident_id as string) ?? [];
      list.push({
        id: u.id as string,
        status: u.status as IncidentStatus,
        message: u.message as string,
        createdAt: u.created_at as string,
      });
      byIncident.set(u.incident_id as string, list);
    }
    return rows.map((r) => ({
      id: r.id as string,
      statusPageId: r.status_page_id as string,
      title: r.title as string,
      impact: r.impact as Impact,
      status: r.status as IncidentStatus,
      monitorIds: JSON.parse(r.monitor_ids as string) as string[],
      updates: byIncident.get(r.id as string) ?? [],
      createdAt: r.created_at as string,
      updatedAt: r.updated_at as string,
      resolvedAt: (r.resolved_at as string | null) ?? null,
    }));
  };

  return {
    async insert(incident) {
      await insertIncident(sql, incident);
    },
    addUpdate: (incident, update) => sql.begin((tx) => addIncidentUpdate(tx, incident, update)),
    find: (pageId, id) =>
      sql.begin(async (tx) => {
        const rows: Row[] = await tx`
          SELECT * FROM status_page_incidents WHERE status_page_id = ${pageId} AND id = ${id}`;
        return (await withUpdates(tx, pageId, rows))[0] ?? null;
      }),
    list: (pageId) =>
      sql.begin(async (tx) => {
        const rows: Row[] = await tx`
          SELECT * FROM status_page_incidents WHERE status_page_id = ${pageId}
          ORDER BY created_at DESC, id DESC`;
        return withUpdates(tx, pageId, rows);
      }),
    recent: (pageId, sinceIso) =>
      sql.begin(async (tx) => {
        const rows: Row[] = await tx`
          SELECT * FROM status_page_incidents WHERE status_page_id = ${pageId}
            AND (resolved_at IS NULL OR resolved_at >= ${sinceIso} OR created_at >= ${sinceIso})
          ORDER BY created_at DESC, id DESC`;
        return withUpdates(tx, pageId, rows);
      }),
    async remove(pageId, id) {
      const rows = await sql`
        DELETE FROM status_page_incidents WHERE status_page_id = ${pageId} AND id = ${id}
        RETURNING id`;
      return rows.length > 0;
    },
  };
}
