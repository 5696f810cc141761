import type { PostgresTx as TransactionSQL } from "../db/db.postgres-handle.ts";
import type { RunRecord } from "./actions.recorder.ts";

/**
 * Writes one turn's finished runs in the caller's transaction: each run's row (none when its
 * request is gone), its owed row settled, and each variable once, with the last value the batch
 * gave it. Returns, per record, whether its row was written.
 *
 * Across nodes a variable keeps the value of the latest run by its time: the upsert never
 * replaces a value with one from an older run, whichever node commits last.
 */
export async function recordRunsPostgres(
  tx: TransactionSQL,
  batch: readonly RunRecord[],
): Promise<boolean[]> {
  const stores = new Map<string, Map<string, { value: unknown; at: string }>>();
  const kept: boolean[] = [];
  for (const record of batch) {
    await tx`DELETE FROM action_runs_due WHERE request_id = ${record.requestId}`;
    const inserted = await tx`INSERT INTO action_runs
        (id, request_id, endpoint_id, trigger, results, created_at)
      SELECT ${record.id}, ${record.requestId}, ${record.endpointId}, ${record.trigger},
        ${JSON.stringify(record.results)}, ${record.createdAt}
      WHERE EXISTS (SELECT 1 FROM captured_requests WHERE id = ${record.requestId})`;
    kept.push(inserted.count > 0);
    if (record.stores.length === 0) continue;
    const ofEndpoint = stores.get(record.endpointId) ?? new Map();
    stores.set(record.endpointId, ofEndpoint);
    for (const { name, value } of record.stores) {
      ofEndpoint.set(name, { value, at: record.createdAt });
    }
  }
  for (const [endpointId, values] of stores) {
    for (const [name, { value, at }] of values) {
      // An endpoint deleted meanwhile takes none: the SELECT finds no live endpoint.
      await tx`INSERT INTO endpoint_variables (endpoint_id, name, value, updated_at)
        SELECT ${endpointId}, ${name}, ${JSON.stringify(value ?? null)}, ${at}
        WHERE EXISTS (SELECT 1 FROM debug_endpoints WHERE id = ${endpointId} AND deleted_at IS NULL)
        ON CONFLICT (endpoint_id, name) DO UPDATE SET value = excluded.value,
          updated_at = excluded.updated_at
        WHERE endpoint_variables.updated_at <= excluded.updated_at`;
    }
  }
  return kept;
}
