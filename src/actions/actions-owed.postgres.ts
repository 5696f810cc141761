import { isPreflight } from "../capture/capture.model.ts";
import type { CommittedCapture } from "../capture/capture.writer.ts";
import type { PostgresSql as SQL, PostgresTx as TransactionSQL } from "../db/db.postgres-handle.ts";

/**
 * How long a node holds an owed run without renewing it: the node making the run renews it while
 * the run is in flight; once a crashed node stops, recovery on another node takes the run.
 */
export const OWED_LEASE_MS = 30_000;

/** A run still owed to a capture, leased to this node by its claim. */
export interface ClaimedOwedRun {
  requestId: string;
  endpointId: string;
  organizationId: string;
  plan: string;
}

/**
 * In the capture batch's transaction: notes a run owed to each capture whose endpoint has a
 * chain, leased to this node (which runs it next). The chain is looked up in the same statement,
 * not in a node's cache: on several nodes another node may have just added the endpoint's first
 * action.
 */
export async function oweActionRunsPostgres(
  tx: TransactionSQL,
  captures: readonly CommittedCapture[],
  leaseMs = OWED_LEASE_MS,
): Promise<void> {
  for (const { request, endpoint } of captures) {
    if (endpoint.organizationId === null) continue;
    // Capture answers a CORS preflight itself and runs no chain on it.
    if (isPreflight(request.method, request.headers)) continue;
    await tx`INSERT INTO action_runs_due (request_id, endpoint_id, organization_id, created_at,
        lease_until)
      SELECT ${request.id}, ${endpoint.id}, ${endpoint.organizationId}, ${request.createdAt},
        (extract(epoch FROM clock_timestamp()) * 1000)::bigint + ${leaseMs}
      WHERE EXISTS (SELECT 1 FROM endpoint_actions WHERE endpoint_id = ${endpoint.id})
      ON CONFLICT (request_id) DO NOTHING`;
  }
}

/**
 * Owed runs of captures made before `beforeIso` whose lease lapsed (on the server's clock),
 * oldest first, leased to the caller for `leaseMs`. SKIP LOCKED: nodes claiming at once each take
 * different runs, and a run whose node still renews its lease is not taken at all.
 */
export async function claimOwedRunsPostgres(
  sql: TransactionSQL | SQL,
  beforeIso: string,
  limit: number,
  leaseMs = OWED_LEASE_MS,
): Promise<ClaimedOwedRun[]> {
  const rows = await sql`
    WITH n AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms),
    picked AS (
      SELECT d.request_id FROM action_runs_due d, n
      WHERE d.created_at < ${beforeIso} AND (d.lease_until IS NULL OR d.lease_until <= n.ms)
      ORDER BY d.created_at, d.request_id LIMIT ${limit}
      FOR UPDATE OF d SKIP LOCKED)
    UPDATE action_runs_due d SET lease_until = (SELECT ms FROM n) + ${leaseMs}
    FROM picked, organizations o
    WHERE d.request_id = picked.request_id AND o.id = d.organization_id
    RETURNING d.request_id AS "requestId", d.endpoint_id AS "endpointId",
      d.organization_id AS "organizationId", o.plan AS plan, d.created_at AS "createdAt"`;
  const claimed = [...rows] as (ClaimedOwedRun & { createdAt: string })[];
  // The order the SELECT picked in (byte order, as COLLATE "C" sorts); UPDATE returns any order.
  const key = (run: { createdAt: string; requestId: string }) => [run.createdAt, run.requestId];
  claimed.sort((x, y) => {
    const [a, b] = [key(x), key(y)];
    return a < b ? -1 : a > b ? 1 : 0;
  });
  return claimed.map(({ createdAt: _, ...run }) => run);
}

const RENEW_SLICE = 5000;

/** Extends this node's leases of the owed runs it is still making. */
export async function renewOwedRunsPostgres(
  sql: SQL,
  requestIds: readonly string[],
  leaseMs = OWED_LEASE_MS,
): Promise<void> {
  // In slices: a statement takes at most 65,535 parameters.
  for (let start = 0; start < requestIds.length; start += RENEW_SLICE) {
    const slice = requestIds.slice(start, start + RENEW_SLICE);
    await sql`UPDATE action_runs_due
      SET lease_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + ${leaseMs}
      WHERE request_id IN ${sql(slice)}`;
  }
}

/** Settles an owed run once its record has committed. */
export async function settleOwedRunPostgres(sql: TransactionSQL | SQL, requestId: string) {
  await sql`DELETE FROM action_runs_due WHERE request_id = ${requestId}`;
}
