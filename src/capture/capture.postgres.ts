import type { TransactionSQL } from "bun";
import type { Plan } from "../auth/auth.model.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { customResponseOf } from "../endpoints/endpoints.columns.ts";
import type { DrainingEndpoint } from "../endpoints/endpoints.model.ts";
import { verificationOf } from "../verification/verification.settings.ts";
import type { CaptureStore } from "./capture.store.ts";
import { createRequestsPostgresReads } from "./requests.postgres.ts";

/**
 * What the PostgreSQL store's transactions write in other rooms' tables, through their ports:
 * the PostgreSQL twins of the SQLite `TxHandle` ports. Each is optional until its room has a
 * PostgreSQL store; without it nothing is written there.
 */
export interface CapturePostgresTxPorts {
  /** Deletes the forward deliveries of requests retention or the drain removed, in its transaction. */
  forgetForwards?(tx: TransactionSQL, requestIds: readonly string[]): Promise<void>;
  /** In the transaction that drained an endpoint's last hidden request: ends its drain. */
  finishDrain?(tx: TransactionSQL, endpoint: DrainingEndpoint): Promise<void>;
}

/**
 * The capture store on PostgreSQL: the statements of capture.repo.ts, requests.repo.ts,
 * retention.repo.ts and drain.repo.ts with the same results. Counters are `bigint` columns, read
 * back as numbers; a method that must be atomic runs in its own `sql.begin`.
 */
export function createCapturePostgresStore(
  pg: PostgresDb,
  ports: CapturePostgresTxPorts = {},
): CaptureStore {
  const sql = pg.sql;
  return {
    ...createRequestsPostgresReads(sql),
    async findEndpoint(slug) {
      const [row] = await sql`
        SELECT e.id, e.organization_id AS "organizationId", e.slug, e.status,
               e.forward_url AS "forwardUrl", e.expires_at AS "expiresAt",
               e.response_status AS "responseStatus", e.response_headers AS "responseHeaders",
               e.response_body AS "responseBody", e.response_delay_ms AS "responseDelayMs",
               e.verification, o.plan
          FROM debug_endpoints e LEFT JOIN organizations o ON o.id = e.organization_id
         WHERE e.slug = ${slug} AND e.deleted_at IS NULL`;
      if (!row) return null;
      return {
        id: row.id,
        organizationId: row.organizationId,
        slug: row.slug,
        forwardUrl: row.forwardUrl,
        status: row.status,
        plan: (row.plan as Plan | null) ?? "free",
        expiresAt: row.expiresAt,
        response: customResponseOf(row),
        verification: verificationOf(row.verification),
      };
    },
    async countStored(endpointId) {
      const [row] = await sql`SELECT request_count::integer AS n FROM debug_endpoints
        WHERE id = ${endpointId}`;
      return row?.n ?? 0;
    },
    async anonymousStoredBytes() {
      const [row] = await sql`
        SELECT coalesce(sum(r.size), 0)::float8 AS bytes
          FROM debug_endpoints e JOIN captured_requests r ON r.endpoint_id = e.id
         WHERE e.organization_id IS NULL AND e.deleted_at IS NULL
           AND r.id > coalesce(e.cleared_through_id, '')`;
      return row?.bytes ?? 0;
    },
    async setAnsweredStatus(requestId, status) {
      await sql`UPDATE captured_requests SET status = ${status} WHERE id = ${requestId}`;
    },
    async addRefusals(deltas) {
      if (deltas.length === 0) return;
      await sql.begin(async (tx) => {
        for (const d of deltas) {
          await tx`
            INSERT INTO capture_refusals (endpoint_id, rate_limited, too_large, last_refused_at)
            SELECT ${d.endpointId}, ${d.rateLimited}, ${d.tooLarge}, ${d.lastRefusedAt}
             WHERE EXISTS (SELECT 1 FROM debug_endpoints WHERE id = ${d.endpointId})
            ON CONFLICT (endpoint_id) DO UPDATE SET
              rate_limited = capture_refusals.rate_limited + excluded.rate_limited,
              too_large = capture_refusals.too_large + excluded.too_large,
              last_refused_at = excluded.last_refused_at`;
        }
      });
    },
    async endpointsAfter(afterId, limit) {
      const rows = await sql`
        SELECT e.id, e.organization_id AS "organizationId", o.plan
          FROM debug_endpoints e LEFT JOIN organizations o ON o.id = e.organization_id
         WHERE e.id > ${afterId} AND e.deleted_at IS NULL ORDER BY e.id LIMIT ${limit}`;
      return rows.map((row: { id: string; organizationId: string | null; plan: Plan | null }) => ({
        id: row.id,
        organizationId: row.organizationId,
        plan: row.plan ?? "free",
      }));
    },
    deleteRequestsBefore: (endpointId, cutoffIso, limit) =>
      sql.begin(async (tx) => {
        // The endpoint's row is locked first, as SQLite's write lock would: an empty cannot move
        // its mark between reading it and taking the deleted rows off the counter.
        const [live] = await tx`SELECT cleared_through_id AS mark FROM debug_endpoints
          WHERE id = ${endpointId} AND deleted_at IS NULL FOR UPDATE`;
        const deleted: { id: string }[] = await tx`
          DELETE FROM captured_requests
           WHERE id IN (SELECT id FROM captured_requests WHERE endpoint_id = ${endpointId}
                         ORDER BY id LIMIT ${limit})
             AND created_at < ${cutoffIso}
          RETURNING id`;
        const ids = deleted.map((row) => row.id).sort();
        if (ids.length > 0) await ports.forgetForwards?.(tx, ids);
        const floor: string = live?.mark ?? "";
        const visible = live ? ids.filter((id) => id > floor).length : 0;
        if (visible > 0) {
          await tx`UPDATE debug_endpoints SET request_count = request_count - ${visible}
            WHERE id = ${endpointId}`;
        }
        return ids.length;
      }),
    drainBatch: (endpoint, limit) =>
      sql.begin(async (tx) => {
        const throughId = endpoint.deleted ? null : endpoint.clearedThroughId;
        const deleted: { id: string }[] = await tx`
          DELETE FROM captured_requests WHERE id IN (
            SELECT id FROM captured_requests
             WHERE endpoint_id = ${endpoint.endpointId}
               AND (${throughId}::text IS NULL OR id <= ${throughId}::text)
             ORDER BY id LIMIT ${limit})
          RETURNING id`;
        const ids = deleted.map((row) => row.id).sort();
        if (ids.length > 0) await ports.forgetForwards?.(tx, ids);
        const finished = ids.length < limit;
        if (finished) await ports.finishDrain?.(tx, endpoint);
        return { deleted: ids.length, finished };
      }),
  };
}
