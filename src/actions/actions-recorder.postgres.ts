import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { RecorderHooks, RunRecord, RunRecorder, VariablesAt } from "./actions.recorder.ts";
import type { ActionsStore } from "./actions.store.ts";
import { recordRunsPostgres } from "./actions-record.postgres.ts";

export interface PostgresRecorderDeps extends RecorderHooks {
  pg: PostgresDb;
  store: Pick<ActionsStore, "variables">;
}

interface Queued {
  record: RunRecord;
  resolve(kept: boolean): void;
  reject(error: unknown): void;
}

/** This node's submitted, not yet committed stores of one endpoint. */
interface PendingStores {
  values: Record<string, unknown>;
  pending: number;
  generation: number;
}

/**
 * Records runs on PostgreSQL: the records submitted in one turn commit in one transaction
 * (recordRunsPostgres), one batch in flight at a time, so records commit in submission order.
 *
 * Other nodes run the same endpoint's chain, so a run reads the endpoint's variables from the
 * table every time, with this node's stores not yet committed laid over them. As on SQLite, a
 * failed batch moves the endpoint's generation on, and records of runs that read the old one
 * are not written (their owed rows stay for recovery).
 */
export function createRunRecorderPostgres(deps: PostgresRecorderDeps): RunRecorder {
  const pending = new Map<string, PendingStores>();
  const generations = new Map<string, number>();
  let queue: Queued[] = [];
  let flushing: Promise<void> | null = null;
  let scheduled = false;

  const generationOf = (endpointId: string) =>
    pending.get(endpointId)?.generation ?? generations.get(endpointId) ?? 0;

  const settled = (batch: readonly RunRecord[]) => {
    for (const record of batch) {
      const entry = pending.get(record.endpointId);
      if (!entry || entry.generation !== record.generation) continue;
      entry.pending -= 1;
      if (entry.pending === 0) pending.delete(record.endpointId);
    }
  };

  const commit = async (batch: Queued[]) => {
    const records = batch.map((queued) => queued.record);
    const current = records.filter(
      (record) => (generations.get(record.endpointId) ?? 0) === record.generation,
    );
    let written: boolean[];
    try {
      written =
        current.length === 0
          ? []
          : await deps.pg.sql.begin((tx) => recordRunsPostgres(tx, current));
    } catch (error) {
      settled(records);
      for (const endpointId of new Set(records.map((record) => record.endpointId))) {
        generations.set(endpointId, (generations.get(endpointId) ?? 0) + 1);
        pending.delete(endpointId);
      }
      for (const queued of batch) queued.reject(error);
      return;
    }
    settled(records);
    const kept = new Map(current.map((record, i) => [record, written[i] === true]));
    for (const queued of batch) {
      const wasKept = kept.get(queued.record) ?? false;
      if (wasKept) {
        try {
          deps.committed(queued.record);
        } catch (error) {
          deps.onHookError(error);
        }
      }
      queued.resolve(wasKept);
    }
  };

  const flush = async () => {
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      await commit(batch);
    }
    flushing = null;
  };

  const schedule = () => {
    if (scheduled || flushing) return;
    scheduled = true;
    // What the rest of this turn submits joins the batch.
    setImmediate(() => {
      scheduled = false;
      flushing ??= flush();
    });
  };

  return {
    async variablesOf(endpointId): Promise<VariablesAt> {
      const generation = generationOf(endpointId);
      // Taken before the read: a batch committing while the read is out clears its pending
      // values, and the read may still see the table from before that commit.
      const entry = pending.get(endpointId);
      const overlay = entry && entry.generation === generation ? { ...entry.values } : {};
      const values = await deps.store.variables(endpointId);
      return { values: Object.assign(values, overlay), generation };
    },
    generationOf,
    submit(record) {
      let entry = pending.get(record.endpointId);
      if (!entry) {
        const generation = generations.get(record.endpointId) ?? 0;
        entry = { values: {}, pending: 0, generation };
        pending.set(record.endpointId, entry);
      }
      if (entry.generation === record.generation) {
        entry.pending += 1;
        for (const { name, value } of record.stores) entry.values[name] = value ?? null;
      } else if (entry.pending === 0) {
        pending.delete(record.endpointId);
      }
      return new Promise<boolean>((resolve, reject) => {
        queue.push({ record, resolve, reject });
        schedule();
      });
    },
    async close() {
      while (flushing || queue.length > 0) {
        flushing ??= flush();
        await flushing;
      }
    },
  };
}
