import type { Plan } from "../auth/auth.model.ts";
import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";

/** An endpoint as the sweep sees it: its plan (anonymous: free) and, if anonymous, its end. */
export interface SweptEndpoint {
  id: string;
  organizationId: string | null;
  plan: Plan;
}

/** Deletes the forward deliveries of deleted requests, in the delete's transaction. */
export type ForgetForwards = (tx: TxHandle, requestIds: string[]) => void;

/**
 * The SQL of the retention sweep. Every delete is bounded by a LIMIT so one transaction stays
 * short and capture commits can run between batches; each batch's requests and their forward
 * deliveries (the delivery room's outbox, through `forgetForwards`) go in one transaction.
 */
export function createRetentionRepo(
  db: Pick<Db, "sqlite" | "tx">,
  forgetForwards: ForgetForwards = () => {},
) {
  const sqlite = db.sqlite;
  const endpoints = sqlite.prepare<SweptEndpoint & { plan: Plan | null }, [string, number]>(
    `SELECT e.id, e.organization_id AS organizationId, o.plan
       FROM debug_endpoints e LEFT JOIN organizations o ON o.id = e.organization_id
      WHERE e.id > ? ORDER BY e.id LIMIT ?`,
  );
  // The oldest `limit` requests of the endpoint by id (the (endpoint_id, id) index; ids are
  // UUIDv7, so id order is capture order), of which those created before the cutoff go.
  const deleteOld = sqlite.prepare<{ id: string }, [string, number, string]>(
    `DELETE FROM captured_requests
      WHERE id IN (SELECT id FROM captured_requests WHERE endpoint_id = ?1 ORDER BY id LIMIT ?2)
        AND created_at < ?3
     RETURNING id`,
  );
  const deleteAny = sqlite.prepare<{ id: string }, [string, number]>(
    `DELETE FROM captured_requests WHERE id IN (
       SELECT id FROM captured_requests WHERE endpoint_id = ? LIMIT ?)
     RETURNING id`,
  );
  /** Runs one bounded delete and forgets the deleted requests' forwards with it. */
  const deleting = (remove: () => { id: string }[]): number =>
    db.tx((tx) => {
      const ids = remove().map((row) => row.id);
      if (ids.length > 0) forgetForwards(tx, ids);
      return ids.length;
    });

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
     * their forward deliveries go with them. Fewer than `limit` deleted means the old ones are gone
     * (capture time follows id order), so callers stop there.
     */
    deleteRequestsBefore(endpointId: string, cutoffIso: string, limit: number): number {
      return deleting(() => deleteOld.all(endpointId, limit, cutoffIso));
    },
    /** Deletes up to `limit` of the endpoint's requests, whatever their age. */
    deleteSomeRequests(endpointId: string, limit: number): number {
      return deleting(() => deleteAny.all(endpointId, limit));
    },
  };
}

export type RetentionRepo = ReturnType<typeof createRetentionRepo>;
