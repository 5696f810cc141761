import type { PostgresDb, PostgresSql, PostgresTx } from "../db/db.postgres-handle.ts";
import { isoAt } from "../shared/clock.ts";
import type { RetriedDelivery } from "./delivery.ports.ts";
import { type AttemptRow, type DeliveryRow, toAttempt } from "./delivery.repo.ts";
import type { DeliveryStore } from "./delivery.store.ts";

type Row = Record<string, unknown>;

/** bigint columns arrive as text: the due time and the lease are numbers, as on SQLite. */
export function deliveryOfPgRow(row: Row): DeliveryRow {
  const numberOrNull = (value: unknown) => (value === null ? null : Number(value));
  return {
    ...(row as unknown as DeliveryRow),
    next_attempt_at: numberOrNull(row.next_attempt_at),
    locked_until: numberOrNull(row.locked_until),
  };
}

/** What a manual retry does to one row at `now` (as delivery.retry-now.repo.ts decides it). */
function actionAt(row: DeliveryRow, now: number): RetriedDelivery["action"] {
  if (row.next_attempt_at === null) return row.status === "failed" ? "requeued" : "unchanged";
  const leased = row.locked_until !== null && row.locked_until > now;
  return row.next_attempt_at > now && !leased ? "pulled_forward" : "unchanged";
}

/**
 * The outbox on PostgreSQL: the statements of delivery.repo.ts and delivery.retry-now.repo.ts
 * with the same results. A retry locks the rows it reads (`FOR UPDATE`), so a worker on another
 * node finishing one of them meanwhile is applied before or after it, never between.
 */
export function createDeliveryPostgresStore(pg: PostgresDb): DeliveryStore {
  const on = (tx: PostgresTx | null): PostgresSql | PostgresTx => tx ?? pg.sql;
  return {
    async insert(tx, rows) {
      for (const r of rows) {
        await on(tx)`
          INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key,
            webhook_id, status, attempts, max_retries, next_attempt_at, locked_until, created_at,
            updated_at)
          VALUES (${r.id}, ${r.kind}, ${r.organization_id}, ${r.subject_id}, ${r.destination_key},
            ${r.webhook_id}, 'pending', 0, ${r.max_retries}, ${r.next_attempt_at}, NULL,
            ${r.created_at}, ${r.updated_at})`;
      }
    },
    async find(id) {
      const [row] = await pg.sql`SELECT * FROM deliveries WHERE id = ${id}`;
      return row ? deliveryOfPgRow(row) : null;
    },
    async listBySubject(kind, subjectIds) {
      if (subjectIds.length === 0) return [];
      const rows = await pg.sql`
        SELECT * FROM deliveries WHERE kind = ${kind} AND subject_id IN ${pg.sql(subjectIds)}
        ORDER BY created_at, id`;
      return rows.map(deliveryOfPgRow);
    },
    async listAttempts(deliveryId, limit) {
      const rows = await pg.sql<AttemptRow[]>`
        SELECT * FROM delivery_attempts WHERE delivery_id = ${deliveryId}
        ORDER BY created_at DESC, attempt DESC, id DESC LIMIT ${limit}`;
      return rows.map(toAttempt);
    },
    async attemptsOfSubject(kind, subjectId, page) {
      const rows = await pg.sql<(AttemptRow & { destination_key: string })[]>`
        SELECT a.*, d.destination_key FROM delivery_attempts a
          JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.kind = ${kind} AND d.subject_id = ${subjectId}
         ORDER BY a.created_at, a.attempt, a.id LIMIT ${page.limit} OFFSET ${page.offset}`;
      const [{ n }] = await pg.sql`
        SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.kind = ${kind} AND d.subject_id = ${subjectId}`;
      const attempts = rows.map((row) => ({
        ...toAttempt(row),
        destinationKey: row.destination_key,
      }));
      return { attempts, total: n as number };
    },
    async requeue(tx, kind, subjectId, includeEnded, now) {
      const result = await on(tx)`
        UPDATE deliveries SET status = 'retrying', next_attempt_at = ${now}, locked_until = NULL,
          attempts_before_requeue = attempts, updated_at = ${isoAt(now)}
        WHERE kind = ${kind} AND subject_id = ${subjectId} AND next_attempt_at IS NULL
          AND (status = 'failed' OR ${includeEnded})`;
      return result.count;
    },
    async retryNow(tx, kind, subjectIds, destinationKey, now) {
      if (subjectIds.length === 0) return [];
      const sql = on(tx);
      const rows: DeliveryRow[] = (
        await sql<Row[]>`
          SELECT * FROM deliveries
           WHERE kind = ${kind} AND subject_id IN ${sql(subjectIds)}
             AND (${destinationKey}::text IS NULL OR destination_key = ${destinationKey})
           ORDER BY created_at, id FOR UPDATE`
      ).map(deliveryOfPgRow);
      const acted = rows.map((row) => ({ row, action: actionAt(row, now) }));
      const requeued = acted.filter((a) => a.action === "requeued").map((a) => a.row.id);
      const pulled = acted.filter((a) => a.action === "pulled_forward").map((a) => a.row.id);
      if (requeued.length > 0) {
        await sql`
          UPDATE deliveries SET status = 'retrying', next_attempt_at = ${now}, locked_until = NULL,
            attempts_before_requeue = attempts, updated_at = ${isoAt(now)}
          WHERE id IN ${sql(requeued)}`;
      }
      if (pulled.length > 0) {
        await sql`UPDATE deliveries SET next_attempt_at = ${now}, updated_at = ${isoAt(now)}
                  WHERE id IN ${sql(pulled)}`;
      }
      return acted.map(({ row, action }) => ({
        id: row.id,
        subjectId: row.subject_id,
        destinationKey: row.destination_key,
        action,
      }));
    },
    async forgetSubjects(tx, kind, subjectIds) {
      if (subjectIds.length === 0) return 0;
      const sql = on(tx);
      const result = await sql`
        DELETE FROM deliveries WHERE kind = ${kind} AND subject_id IN ${sql(subjectIds)}`;
      return result.count;
    },
    async finish(tx, o) {
      const result = await on(tx)`
        UPDATE deliveries SET status = ${o.status}, attempts = ${o.attempts},
          next_attempt_at = ${o.nextAttemptAt}, locked_until = NULL,
          last_status_code = ${o.statusCode}, last_error_type = ${o.errorType},
          last_error_code = ${o.errorCode}, last_error_message = ${o.errorMessage},
          last_latency_ms = ${o.latencyMs}, updated_at = ${o.updatedAt}
        WHERE id = ${o.id} AND locked_until = ${o.lockedUntil}`;
      return result.count === 1;
    },
    async insertAttempt(tx, a) {
      await on(tx)`
        INSERT INTO delivery_attempts (id, delivery_id, attempt, url, method, status_code,
          response_headers, response_body, latency_ms, error_type, error_code, error_message,
          sent_request, created_at)
        VALUES (${a.id}, ${a.deliveryId}, ${a.attempt}, ${a.url}, ${a.method}, ${a.statusCode},
          ${JSON.stringify(a.responseHeaders)}, ${a.responseBody}, ${a.latencyMs}, ${a.errorType},
          ${a.errorCode}, ${a.errorMessage}, ${a.sent ? JSON.stringify(a.sent) : null},
          ${a.createdAt})`;
    },
  };
}
