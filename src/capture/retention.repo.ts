import type { Plan } from "../auth/auth.model.ts";
import type { Db } from "../db/db.open.ts";

/** An endpoint as the sweep sees it: its plan (anonymous: free) and, if anonymous, its end. */
export interface SweptEndpoint {
  id: string;
  organizationId: string | null;
  plan: Plan;
}

/**
 * The SQL of the retention sweep. Every delete is bounded by a LIMIT so one transaction stays
 * short and capture commits can run between batches.
 */
export function createRetentionRepo(db: Pick<Db, "sqlite">) {
  const sqlite = db.sqlite;
  const endpoints = sqlite.prepare<SweptEndpoint & { plan: Plan | null }, [string, number]>(
    `SELECT e.id, e.organization_id AS organizationId, o.plan
       FROM debug_endpoints e LEFT JOIN organizations o ON o.id = e.organization_id
      WHERE e.id > ? ORDER BY e.id LIMIT ?`,
  );
  // The oldest `limit` requests of the endpoint by id (the (endpoint_id, id) index; ids are
  // UUIDv7, so id order is capture order), of which those created before the cutoff go.
  const deleteOld = sqlite.prepare<never, [string, number, string]>(
    `DELETE FROM captured_requests
      WHERE id IN (SELECT id FROM captured_requests WHERE endpoint_id = ?1 ORDER BY id LIMIT ?2)
        AND created_at < ?3`,
  );
  const deleteAny = sqlite.prepare<never, [string, number]>(
    `DELETE FROM captured_requests WHERE id IN (
       SELECT id FROM captured_requests WHERE endpoint_id = ? LIMIT ?)`,
  );

  return {
    /** Endpoints after `afterId` in id order, `limit` at a time (keyset paging). */
    endpointsAfter(afterId: string, limit: number): SweptEndpoint[] {
      return endpoints.all(afterId, limit).map((row) => ({
        id: row.id,
        organizationId: row.organizationId,
        plan: row.plan ?? "free",
      }));
    },
    /**
     * Deletes, among the endpoint's `limit` oldest requests, those created before `cutoffIso`;
     * their forwards go by cascade. Fewer than `limit` deleted means the old ones are gone
     * (capture time follows id order), so callers stop there.
     */
    deleteRequestsBefore(endpointId: string, cutoffIso: string, limit: number): number {
      return deleteOld.run(endpointId, limit, cutoffIso).changes;
    },
    /** Deletes up to `limit` of the endpoint's requests, whatever their age. */
    deleteSomeRequests(endpointId: string, limit: number): number {
      return deleteAny.run(endpointId, limit).changes;
    },
  };
}

export type RetentionRepo = ReturnType<typeof createRetentionRepo>;
