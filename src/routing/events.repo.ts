import { headersFromPairs } from "../capture/capture.model.ts";
import { BODY_PREVIEW_LIMIT } from "../capture/requests.model.ts";
import type { DbHandle } from "../db/db.tx.ts";

export type EventStatus = "pending" | "delivered" | "failed" | "filtered" | "paused" | "unrouted";

/** Why a destination's filters rejected a filtered event, as stored with it. */
export interface StoredRejection {
  destinationId: string;
  filter: number;
  path: string;
}

/** An ingested request as stored: the body byte-exact, headers lowercased and as received. */
export interface StoredEvent {
  id: string;
  organizationId: string;
  sourceId: string;
  method: string;
  path: string;
  queryString: string;
  headers: Record<string, string>;
  rawHeaders: [string, string][];
  body: Uint8Array;
  status: EventStatus;
  /** Why it failed before any delivery; written with the event, read by `statusReason`. */
  statusReason?: string | null;
  createdAt: string;
  /** A filtered event: why each destination rejected it on arrival (empty otherwise). */
  filteredBy?: StoredRejection[];
  /** Set when `body` was read cut (lists): the whole body's size in bytes. */
  bodySize?: number;
}

export interface EventRow {
  id: string;
  organization_id: string;
  source_id: string;
  method: string;
  path: string;
  query_string: string;
  raw_headers: string;
  body: Uint8Array;
  status: EventStatus;
  created_at: string;
  filtered_by: string | null;
  body_size?: number;
}

export const toEvent = (row: EventRow): StoredEvent => {
  const rawHeaders: [string, string][] = JSON.parse(row.raw_headers);
  return {
    id: row.id,
    organizationId: row.organization_id,
    sourceId: row.source_id,
    method: row.method,
    path: row.path,
    queryString: row.query_string,
    // Stored once, as the pairs (migration 0023), and derived as capture does.
    headers: headersFromPairs(rawHeaders),
    rawHeaders,
    body: row.body,
    status: row.status,
    createdAt: row.created_at,
    filteredBy: row.filtered_by ? JSON.parse(row.filtered_by) : [],
    ...(row.body_size === undefined ? {} : { bodySize: row.body_size }),
  };
};

// An event row with its state's status. A correlated lookup, not a JOIN: reading one event (each
// delivery's prepare does) measured 2-3x slower through the join.
const STATUS = "(SELECT status FROM event_states WHERE event_id = e.id)";
const COLUMNS = `e.*, ${STATUS} AS status`;
// A list row reads only the start of its body (decisions.md §15) and the whole one's size: a page
// of 1 MB events costs a page of previews, in SQLite's memory as in ours. substr of an empty
// blob is NULL: an empty body stays an empty blob.
const LIST_COLUMNS = `e.id, e.organization_id, e.source_id, e.method, e.path, e.query_string,
  e.raw_headers, coalesce(substr(e.body, 1, ${BODY_PREVIEW_LIMIT}), x'') AS body,
  length(e.body) AS body_size, e.created_at, e.filtered_by, ${STATUS} AS status`;

/** Where a bulk retry's walk through the events stands: the last one it handed out. */
export interface EventCursor {
  createdAt: string;
  id: string;
}

/** What a list of events may be narrowed by (decisions.md §13). */
export interface EventQuery {
  status?: EventStatus;
  sourceId?: string;
  bridgeId?: string;
  since?: string;
  until?: string;
}

/** All SQL of events. */
export function createEventsRepo(db: DbHandle) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO events (id, organization_id, source_id, method, path, query_string,
       raw_headers, body, created_at, filtered_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertState = sqlite.prepare<never, [string, string, number, string | null]>(
    "INSERT INTO event_states (event_id, status, open_deliveries, status_reason) VALUES (?, ?, ?, ?)",
  );
  const reasonOf = sqlite.prepare<{ status_reason: string | null }, [string]>(
    "SELECT status_reason FROM event_states WHERE event_id = ?",
  );
  const byId = sqlite.prepare<EventRow, [string, string]>(
    `SELECT ${COLUMNS} FROM events e WHERE e.id = ? AND e.organization_id = ?`,
  );
  const byAnyId = sqlite.prepare<EventRow, [string]>(
    `SELECT ${COLUMNS} FROM events e WHERE e.id = ?`,
  );
  const setStatus = sqlite.prepare<never, [string, string]>(
    "UPDATE event_states SET status = ? WHERE event_id = ?",
  );
  const reopen = sqlite.prepare<never, [number, string]>(
    "UPDATE event_states SET status = 'pending', open_deliveries = open_deliveries + ? WHERE event_id = ?",
  );
  // One statement, no read of the siblings: the last open delivery ending delivered delivers a
  // still pending event (a failed one stays failed); a failure fails it at once (decisions §8).
  const deliveredOne = sqlite.prepare<never, [string]>(
    `UPDATE event_states SET open_deliveries = max(open_deliveries - 1, 0),
       status = CASE WHEN open_deliveries <= 1 AND status = 'pending' THEN 'delivered' ELSE status END
     WHERE event_id = ?`,
  );
  const failedOne = sqlite.prepare<never, [string]>(
    `UPDATE event_states SET open_deliveries = max(open_deliveries - 1, 0), status = 'failed'
     WHERE event_id = ?`,
  );
  const relate = sqlite.prepare<never, [string, string]>(
    "INSERT OR IGNORE INTO event_bridges (event_id, bridge_id) VALUES (?, ?)",
  );
  const unrelate = sqlite.prepare<never, [string]>("DELETE FROM event_bridges WHERE event_id = ?");
  // length() of a blob reads the record's header, not the body's pages.
  const storedBytes = sqlite.prepare<{ n: number }, [string]>(
    "SELECT coalesce(sum(length(body)), 0) AS n FROM events WHERE organization_id = ?",
  );
  const tenants = sqlite.prepare<{ id: string; plan: string | null }, []>(
    `SELECT o.id, o.plan FROM organizations o
      WHERE EXISTS (SELECT 1 FROM events e WHERE e.organization_id = o.id)`,
  );
  // The (organization_id, created_at) index finds the oldest rows without a scan.
  const deleteOld = sqlite.prepare<{ id: string }, [string, string, number]>(
    `DELETE FROM events WHERE id IN (
       SELECT id FROM events WHERE organization_id = ?1 AND created_at < ?2 LIMIT ?3)
     RETURNING id`,
  );

  const where = (organizationId: string, q: EventQuery) => {
    const clauses = ["e.organization_id = ?"];
    const args: string[] = [organizationId];
    const add = (clause: string, value: string | undefined) => {
      if (value === undefined) return;
      clauses.push(clause);
      args.push(value);
    };
    add(`${STATUS} = ?`, q.status);
    add("e.source_id = ?", q.sourceId);
    add("e.id IN (SELECT event_id FROM event_bridges WHERE bridge_id = ?)", q.bridgeId);
    add("e.created_at >= ?", q.since);
    add("e.created_at <= ?", q.until);
    return { sql: clauses.join(" AND "), args };
  };

  return {
    /**
     * Stores the event, its state (with `openDeliveries`: the deliveries written with it) and
     * the bridges it went through, in order.
     */
    insert(e: StoredEvent, bridgeIds: readonly string[], openDeliveries: number): void {
      insert.run(
        e.id,
        e.organizationId,
        e.sourceId,
        e.method,
        e.path,
        e.queryString,
        JSON.stringify(e.rawHeaders),
        e.body,
        e.createdAt,
        e.filteredBy && e.filteredBy.length > 0 ? JSON.stringify(e.filteredBy) : null,
      );
      insertState.run(e.id, e.status, openDeliveries, e.statusReason ?? null);
      for (const bridgeId of bridgeIds) relate.run(e.id, bridgeId);
    },
    /** A re-routed event (retry of a paused or filtered one): the bridges it goes through now. */
    replaceBridges(eventId: string, bridgeIds: readonly string[]): void {
      unrelate.run(eventId);
      for (const bridgeId of bridgeIds) relate.run(eventId, bridgeId);
    },
    /** The bridges of each of the events, in the order they were related. */
    bridgesOf(eventIds: readonly string[]): Map<string, string[]> {
      const found = new Map<string, string[]>();
      if (eventIds.length === 0) return found;
      const rows = sqlite
        .query<{ event_id: string; bridge_id: string }, string[]>(
          `SELECT event_id, bridge_id FROM event_bridges
            WHERE event_id IN (${eventIds.map(() => "?").join(",")}) ORDER BY rowid`,
        )
        .all(...eventIds);
      for (const row of rows) {
        const list = found.get(row.event_id);
        if (list) list.push(row.bridge_id);
        else found.set(row.event_id, [row.bridge_id]);
      }
      return found;
    },
    find(organizationId: string, id: string): StoredEvent | null {
      const row = byId.get(id, organizationId);
      return row ? toEvent(row) : null;
    },
    findById(id: string): StoredEvent | null {
      const row = byAnyId.get(id);
      return row ? toEvent(row) : null;
    },
    /** Why the event failed before any delivery, or null. */
    statusReason(id: string): string | null {
      return reasonOf.get(id)?.status_reason ?? null;
    },
    setStatus(id: string, status: EventStatus): void {
      setStatus.run(status, id);
    },
    /** `count` deliveries of the event are due again (a retry): it is pending until they end. */
    reopen(id: string, count: number): void {
      reopen.run(count, id);
    },
    /** One of the event's deliveries ended: the event's status follows (decisions.md §8). */
    deliveryEnded(id: string, outcome: "delivered" | "failed"): void {
      (outcome === "delivered" ? deliveredOne : failedOne).run(id);
    },
    /** One page, newest first, and the total of the narrowed list. */
    page(organizationId: string, q: EventQuery, limit: number, offset: number) {
      const w = where(organizationId, q);
      const total =
        sqlite
          .query<{ n: number }, string[]>(`SELECT count(*) AS n FROM events e WHERE ${w.sql}`)
          .get(...w.args)?.n ?? 0;
      const rows = sqlite
        .query<EventRow, (string | number)[]>(
          `SELECT ${LIST_COLUMNS} FROM events e WHERE ${w.sql}
            ORDER BY e.created_at DESC, e.id DESC LIMIT ? OFFSET ?`,
        )
        .all(...w.args, limit, offset);
      return { events: rows.map(toEvent), total };
    },
    /**
     * The next `limit` events after `cursor` (oldest first) that match `q` and may hold failed or
     * waiting deliveries (failed or pending ones): a bulk retry's batch. The cursor only moves
     * forward, so an event requeued by one batch is never handed out again.
     */
    retryBatch(organizationId: string, q: EventQuery, cursor: EventCursor | null, limit: number) {
      const w = where(organizationId, q);
      const after = cursor ? "AND (e.created_at, e.id) > (?, ?)" : "";
      return sqlite
        .query<{ id: string; created_at: string }, (string | number)[]>(
          `SELECT e.id, e.created_at FROM events e
            WHERE ${w.sql} AND ${STATUS} IN ('failed', 'pending') ${after}
            ORDER BY e.created_at, e.id LIMIT ?`,
        )
        .all(...w.args, ...(cursor ? [cursor.createdAt, cursor.id] : []), limit)
        .map((row): EventCursor => ({ id: row.id, createdAt: row.created_at }));
    },
    /** Bytes of event bodies the organization stores. */
    storedBytes(organizationId: string): number {
      return storedBytes.get(organizationId)?.n ?? 0;
    },
    /** Organizations that hold events, with their plan (retention). */
    tenantsWithEvents(): { id: string; plan: string }[] {
      return tenants.all().map((row) => ({ id: row.id, plan: row.plan ?? "free" }));
    },
    /**
     * Deletes up to `limit` of the organization's events created before `beforeIso`; returns
     * their ids (their deliveries go next, in the same transaction).
     */
    deleteBefore(organizationId: string, beforeIso: string, limit: number): string[] {
      return deleteOld.all(organizationId, beforeIso, limit).map((row) => row.id);
    },
  };
}

export type EventsRepo = ReturnType<typeof createEventsRepo>;
