import { BODY_PREVIEW_LIMIT } from "../capture/requests.model.ts";
import type { PostgresDb, PostgresSql, PostgresTx } from "../db/db.postgres-handle.ts";
import { type EventQuery, type EventRow, toEvent } from "./events.repo.ts";
import type { EventsStore } from "./events.store.ts";

const STATUS = "(SELECT status FROM event_states WHERE event_id = e.id)";
const COLUMNS = `e.*, ${STATUS} AS status`;
const LIST_COLUMNS = `e.id, e.organization_id, e.source_id, e.method, e.path, e.query_string,
  e.raw_headers, substring(e.body from 1 for ${BODY_PREVIEW_LIMIT}) AS body,
  length(e.body) AS body_size, e.created_at, e.filtered_by, ${STATUS} AS status`;

/** The narrowed list's condition, with its parameters from `$first` on. */
function where(organizationId: string, q: EventQuery, first = 1) {
  const clauses = [`e.organization_id = $${first}`];
  const args: string[] = [organizationId];
  const add = (clause: (at: string) => string, value: string | undefined) => {
    if (value === undefined) return;
    args.push(value);
    clauses.push(clause(`$${first + args.length - 1}`));
  };
  add((at) => `${STATUS} = ${at}`, q.status);
  add((at) => `e.source_id = ${at}`, q.sourceId);
  add((at) => `e.id IN (SELECT event_id FROM event_bridges WHERE bridge_id = ${at})`, q.bridgeId);
  add((at) => `e.created_at >= ${at}`, q.since);
  add((at) => `e.created_at <= ${at}`, q.until);
  return { sql: clauses.join(" AND "), args };
}

const asEvent = (row: Record<string, unknown>) =>
  toEvent({
    ...(row as unknown as EventRow),
    body: new Uint8Array((row.body as Uint8Array | null) ?? new Uint8Array()),
    ...(row.body_size === undefined ? {} : { body_size: Number(row.body_size) }),
  });

/**
 * Events on PostgreSQL: the statements of events.repo.ts with the same results. A bridge list
 * keeps the order its bridges were related in: PostgreSQL has no rowid, so it is the bridges'
 * own order (created, then id), which is the order a route plan relates them in.
 */
export function createEventsPostgresStore(pg: PostgresDb): EventsStore {
  const on = (tx: PostgresTx | null): PostgresSql | PostgresTx => tx ?? pg.sql;
  const relate = async (
    sql: PostgresSql | PostgresTx,
    eventId: string,
    bridgeIds: readonly string[],
  ) => {
    for (const bridgeId of bridgeIds) {
      await sql`INSERT INTO event_bridges (event_id, bridge_id) VALUES (${eventId}, ${bridgeId})
                ON CONFLICT DO NOTHING`;
    }
  };
  return {
    async insert(tx, e, bridgeIds, open) {
      const sql = on(tx);
      const filteredBy =
        e.filteredBy && e.filteredBy.length > 0 ? JSON.stringify(e.filteredBy) : null;
      await sql`
        INSERT INTO events (id, organization_id, source_id, method, path, query_string,
          raw_headers, body, created_at, filtered_by)
        VALUES (${e.id}, ${e.organizationId}, ${e.sourceId}, ${e.method}, ${e.path},
          ${e.queryString}, ${JSON.stringify(e.rawHeaders)}, ${e.body}, ${e.createdAt}, ${filteredBy})`;
      await sql`
        INSERT INTO event_states (event_id, status, open_deliveries, status_reason)
        VALUES (${e.id}, ${e.status}, ${open}, ${e.statusReason ?? null})`;
      await relate(sql, e.id, bridgeIds);
    },
    async find(organizationId, id) {
      const [row] = await pg.sql.unsafe(
        `SELECT ${COLUMNS} FROM events e WHERE e.id = $1 AND e.organization_id = $2`,
        [id, organizationId],
      );
      return row ? asEvent(row) : null;
    },
    async findById(id) {
      const [row] = await pg.sql.unsafe(`SELECT ${COLUMNS} FROM events e WHERE e.id = $1`, [id]);
      return row ? asEvent(row) : null;
    },
    async statusReason(id) {
      const [row] = await pg.sql`SELECT status_reason FROM event_states WHERE event_id = ${id}`;
      return (row?.status_reason as string | null | undefined) ?? null;
    },
    async bridgesOf(eventIds) {
      const found = new Map<string, string[]>();
      if (eventIds.length === 0) return found;
      const rows = await pg.sql<{ event_id: string; bridge_id: string }[]>`
        SELECT eb.event_id, eb.bridge_id FROM event_bridges eb
          LEFT JOIN bridges b ON b.id = eb.bridge_id
         WHERE eb.event_id IN ${pg.sql(eventIds)}
         ORDER BY eb.event_id, b.created_at, eb.bridge_id`;
      for (const row of rows) {
        const list = found.get(row.event_id);
        if (list) list.push(row.bridge_id);
        else found.set(row.event_id, [row.bridge_id]);
      }
      return found;
    },
    async page(organizationId, q, limit, offset) {
      const w = where(organizationId, q);
      const [counted] = await pg.sql.unsafe(
        `SELECT count(*)::int AS n FROM events e WHERE ${w.sql}`,
        w.args,
      );
      const at = w.args.length;
      const rows = await pg.sql.unsafe(
        `SELECT ${LIST_COLUMNS} FROM events e WHERE ${w.sql}
          ORDER BY e.created_at DESC, e.id DESC LIMIT $${at + 1} OFFSET $${at + 2}`,
        [...w.args, limit, offset],
      );
      return { events: rows.map(asEvent), total: (counted?.n as number) ?? 0 };
    },
    async retryBatch(organizationId, q, cursor, limit) {
      const w = where(organizationId, q);
      const at = w.args.length;
      const after = cursor ? `AND (e.created_at, e.id) > ($${at + 1}, $${at + 2})` : "";
      const rows = await pg.sql.unsafe(
        `SELECT e.id, e.created_at FROM events e
          WHERE ${w.sql} AND ${STATUS} IN ('failed', 'pending') ${after}
          ORDER BY e.created_at, e.id LIMIT $${at + (cursor ? 3 : 1)}`,
        [...w.args, ...(cursor ? [cursor.createdAt, cursor.id] : []), limit],
      );
      return rows.map((row: { id: string; created_at: string }) => ({
        id: row.id,
        createdAt: row.created_at,
      }));
    },
    async storedBytes(organizationId) {
      const [row] = await pg.sql`
        SELECT coalesce(sum(length(body)), 0)::bigint AS n FROM events
         WHERE organization_id = ${organizationId}`;
      return Number(row?.n ?? 0);
    },
    async tenantsWithEvents() {
      const rows = await pg.sql<{ id: string; plan: string | null }[]>`
        SELECT o.id, o.plan FROM organizations o
         WHERE EXISTS (SELECT 1 FROM events e WHERE e.organization_id = o.id)`;
      return rows.map((row) => ({ id: row.id, plan: row.plan ?? "free" }));
    },
    async deleteBefore(tx, organizationId, beforeIso, limit) {
      const rows = await on(tx)<{ id: string }[]>`
        DELETE FROM events WHERE id IN (
          SELECT id FROM events WHERE organization_id = ${organizationId}
             AND created_at < ${beforeIso} LIMIT ${limit})
        RETURNING id`;
      return rows.map((row) => row.id);
    },
    async setStatus(tx, id, status) {
      await on(tx)`UPDATE event_states SET status = ${status} WHERE event_id = ${id}`;
    },
    async reopen(tx, id, count) {
      await on(tx)`
        UPDATE event_states SET status = 'pending', open_deliveries = open_deliveries + ${count}
         WHERE event_id = ${id}`;
    },
    async reopenMany(tx, counts) {
      if (counts.size === 0) return;
      await on(tx).unsafe(
        `UPDATE event_states s SET status = 'pending', open_deliveries = s.open_deliveries + r.n
           FROM unnest($1::text[], $2::int[]) AS r(id, n) WHERE s.event_id = r.id`,
        [[...counts.keys()], [...counts.values()]],
      );
    },
    async replaceBridges(tx, eventId, bridgeIds) {
      const sql = on(tx);
      await sql`DELETE FROM event_bridges WHERE event_id = ${eventId}`;
      await relate(sql, eventId, bridgeIds);
    },
    async deliveryEnded(tx, id, outcome) {
      // One statement, as on SQLite: the row's lock orders two nodes ending two deliveries.
      if (outcome === "delivered") {
        await on(tx)`
          UPDATE event_states SET open_deliveries = greatest(open_deliveries - 1, 0),
            status = CASE WHEN open_deliveries <= 1 AND status = 'pending' THEN 'delivered'
                          ELSE status END
           WHERE event_id = ${id}`;
      } else {
        await on(tx)`
          UPDATE event_states SET open_deliveries = greatest(open_deliveries - 1, 0),
            status = 'failed'
           WHERE event_id = ${id}`;
      }
    },
  };
}
