import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { DeliveryStore } from "./delivery.store.ts";
import { type ForwardAttemptRow, toRecord } from "./forwards.repo.ts";
import type { ForwardsStore } from "./forwards.store.ts";

/** Forward records on PostgreSQL: the statements of forwards.repo.ts with the same results. */
export function createForwardsPostgresStore(
  pg: PostgresDb,
  deliveries: DeliveryStore,
): ForwardsStore {
  const { sql } = pg;
  return {
    insertReplay: (row, attempt) =>
      sql.begin(async (tx) => {
        // A request hidden by a delete or an empty (and waiting for the drain) counts as gone.
        const [found] = await tx`
          SELECT 1 FROM captured_requests r JOIN debug_endpoints e ON e.id = r.endpoint_id
           WHERE r.id = ${row.subject_id} AND e.deleted_at IS NULL
             AND r.id > coalesce(e.cleared_through_id, '')`;
        if (!found) return false;
        await deliveries.insert(tx, [row]);
        await deliveries.insertAttempt(tx, attempt);
        return true;
      }),
    async listPage(requestId, offset, limit) {
      const rows = await sql<ForwardAttemptRow[]>`
        SELECT a.id, d.subject_id AS request_id, a.url, a.method, a.status_code,
               a.response_headers, a.response_body, a.latency_ms, a.error_code, a.error_message,
               a.attempt, a.created_at
          FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.kind = 'forward' AND d.subject_id = ${requestId}
           AND (a.error_type IS NULL OR a.error_type <> 'circuit_breaker_error')
         ORDER BY a.created_at DESC, a.id DESC LIMIT ${limit} OFFSET ${offset}`;
      return rows.map(toRecord);
    },
    async count(requestId) {
      const [{ n }] = await sql`
        SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
         WHERE d.kind = 'forward' AND d.subject_id = ${requestId}
           AND (a.error_type IS NULL OR a.error_type <> 'circuit_breaker_error')`;
      return n as number;
    },
  };
}
