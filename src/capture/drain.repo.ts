import type { Db } from "../db/db.open.ts";

/** The SQL of the drain: removing requests a delete or an empty already hid from every reader. */
export function createDrainRepo(db: Pick<Db, "sqlite">) {
  // The oldest `limit` hidden requests through the (endpoint_id, id) index: an empty hides the
  // oldest ids (at or below its mark), a delete hides them all (no mark: ?2 is NULL).
  const deleteHidden = db.sqlite.prepare<{ id: string }, [string, string | null, number]>(
    `DELETE FROM captured_requests WHERE id IN (
       SELECT id FROM captured_requests
        WHERE endpoint_id = ?1 AND (?2 IS NULL OR id <= ?2)
        ORDER BY id LIMIT ?3)
     RETURNING id`,
  );
  return {
    /**
     * Deletes up to `limit` of the endpoint's hidden requests (all of them when `throughId` is
     * null, else those at or below it) and returns their ids; their search-index rows go by
     * trigger. Run inside the batch's transaction.
     */
    deleteHidden(endpointId: string, throughId: string | null, limit: number): string[] {
      return deleteHidden.all(endpointId, throughId, limit).map((row) => row.id);
    },
  };
}

export type DrainRepo = ReturnType<typeof createDrainRepo>;
