import type { Plan } from "../auth/auth.model.ts";
import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";

/** A live endpoint as the sweep sees it: its plan (anonymous: free). */
export interface SweptEndpoint {
  id: string;
  organizationId: string | null;
  plan: Plan;
}

/** Deletes the forward deliveries of deleted requests, in the delete's transaction. */
export type ForgetForwards = (tx: TxHandle, requestIds: string[]) => void;

/**
 * The SQL of the retention sweep. Every delete is bounded by a LIMIT so one transaction stays
 * short and capture commits can run between batches; each batch's requests, their forward
 * deliveries (the delivery room's outbox, through `forgetForwards`) and the endpoint's request
 * counter change in one transaction. Deleted endpoints are left to the drain.
 */
export function createRetentionRepo(
  db: Pick<Db, "sqlite" | "tx">,
  forgetForwards: ForgetForwards = () => {},
) {
  const sqlite = db.sqlite;
  const endpoints = sqlite.prepare<SweptEndpoint & { plan: Plan | null }, [string, number]>(
    `SELECT e.id, e.organization_id AS organizationId, o.plan
       FROM debug_endpoints e LEFT JOIN organizations o ON o.id = e.organization_id
      WHERE e.id > ? AND e.deleted_at IS NULL ORDER BY e.id LIMIT ?`,
  );
  // The oldest `limit` requests of the endpoint by id (the (endpoint_id, id) index; ids are
  // UUIDv7, so id order is capture order), of which those created before the cutoff go.
  const deleteOld = sqlite.prepare<{ id: string }, [string, number, string]>(
    `DELETE FROM captured_requests
      WHERE id IN (SELECT id FROM captured_requests WHERE endpoint_id = ?1 ORDER BY id LIMIT ?2)
        AND created_at < ?3
     RETURNING id`,
  );
  const liveMark = sqlite.prepare<{ mark: string | null }, [string]>(
    "SELECT cleared_through_id AS mark FROM debug_endpoints WHERE id = ? AND deleted_at IS NULL",
  );
  const uncount = sqlite.prepare<never, [string, number]>(
    "UPDATE debug_endpoints SET request_count = request_count - ?2 WHERE id = ?1",
  );

  return {
    /** Live endpoints after `afterId` in id order, `limit` at a time (keyset paging). */
    endpointsAfter(afterId: string, limit: number): SweptEndpoint[] {
      return endpoints.all(afterId, limit).map((row) => ({ ...row, plan: row.plan ?? "free" }));
    },
    /**
     * Deletes, among the endpoint's `limit` oldest requests, those created before `cutoffIso`;
     * their forward deliveries go with them, and the visible ones (above the endpoint's empty
     * mark, read in the same transaction) come off its request counter. Fewer than `limit`
     * deleted means the old ones are gone (capture time follows id order), so callers stop there.
     */
    deleteRequestsBefore(endpointId: string, cutoffIso: string, limit: number): number {
      return db.tx((tx) => {
        const live = liveMark.get(endpointId);
        const ids = deleteOld.all(endpointId, limit, cutoffIso).map((row) => row.id);
        if (ids.length > 0) forgetForwards(tx, ids);
        const floor = live?.mark ?? "";
        const visible = live ? ids.filter((id) => id > floor).length : 0;
        if (visible > 0) uncount.run(endpointId, visible);
        return ids.length;
      });
    },
  };
}

export type RetentionRepo = ReturnType<typeof createRetentionRepo>;
