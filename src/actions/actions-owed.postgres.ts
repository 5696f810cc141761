import { isPreflight } from "../capture/capture.model.ts";
import type { CommittedCapture } from "../capture/capture.writer.ts";
import type { PostgresSql as SQL, PostgresTx as TransactionSQL } from "../db/db.postgres-handle.ts";

/** A run still owed to a capture, claimed by this node until its transaction ends. */
export interface ClaimedOwedRun {
  requestId: string;
  endpointId: string;
  organizationId: string;
  plan: string;
}

/**
 * In the capture batch's transaction: notes a run owed to each capture whose endpoint has a
 * chain. The chain is looked up in the same statement, not in a node's cache: on several nodes
 * another node may have just added the endpoint's first action.
 */
export async function oweActionRunsPostgres(
  tx: TransactionSQL,
  captures: readonly CommittedCapture[],
): Promise<void> {
  for (const { request, endpoint } of captures) {
    if (endpoint.organizationId === null) continue;
    // Capture answers a CORS preflight itself and runs no chain on it.
    if (isPreflight(request.method, request.headers)) continue;
    await tx`INSERT INTO action_runs_due (request_id, endpoint_id, organization_id, created_at)
      SELECT ${request.id}, ${endpoint.id}, ${endpoint.organizationId}, ${request.createdAt}
      WHERE EXISTS (SELECT 1 FROM endpoint_actions WHERE endpoint_id = ${endpoint.id})
      ON CONFLICT (request_id) DO NOTHING`;
  }
}

/**
 * Owed runs of captures made before `beforeIso`, oldest first, locked for the caller's
 * transaction with SKIP LOCKED: a run another node is recovering is not handed out twice.
 */
export async function claimOwedRunsPostgres(
  tx: TransactionSQL | SQL,
  beforeIso: string,
  limit: number,
): Promise<ClaimedOwedRun[]> {
  const rows = await tx`SELECT d.request_id AS "requestId", d.endpoint_id AS "endpointId",
      d.organization_id AS "organizationId", o.plan AS plan
    FROM action_runs_due d JOIN organizations o ON o.id = d.organization_id
    WHERE d.created_at < ${beforeIso} ORDER BY d.created_at, d.request_id LIMIT ${limit}
    FOR UPDATE OF d SKIP LOCKED`;
  return [...rows] as ClaimedOwedRun[];
}

/** Settles an owed run once its record has committed. */
export async function settleOwedRunPostgres(sql: TransactionSQL | SQL, requestId: string) {
  await sql`DELETE FROM action_runs_due WHERE request_id = ${requestId}`;
}
