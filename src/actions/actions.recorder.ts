import { createGroupCommit, type Transact } from "../db/db.group-commit.ts";
import type { ActionResult } from "./actions.model.ts";
import type { ActionsRepo } from "./actions.repo.ts";

/** One run to record: its row, the variables it stores and the owed row it settles. */
export interface RunRecord {
  id: string;
  requestId: string;
  endpointId: string;
  trigger: "capture" | "manual";
  results: ActionResult[];
  stores: readonly { name: string; value: unknown }[];
  createdAt: string;
  /** The endpoint's variables generation the run read (see `variablesOf`). */
  generation: number;
}

/** What a recorder tells its owner. */
export interface RecorderHooks {
  /** Told once per committed run that was recorded (the realtime push). */
  committed(record: RunRecord): void;
  onHookError(error: unknown): void;
}

/** The variables a run starts from (its own copy) and their generation. */
export interface VariablesAt {
  values: Record<string, unknown>;
  generation: number;
}

/** Records runs (SQLite: `createRunRecorder`; PostgreSQL: actions-recorder.postgres.ts). */
export interface RunRecorder {
  /** The variables a run of the endpoint starts from, to hand back with the run's record. */
  variablesOf(endpointId: string): VariablesAt | Promise<VariablesAt>;
  /** The generation a record made now belongs to (a run that read no variables). */
  generationOf(endpointId: string): number;
  /**
   * Queues the run's record; its stores are what the endpoint's next run reads from now on.
   * Resolves true once committed, false when not recorded (request gone, or a failed batch
   * came before it); rejects when its own batch failed.
   */
  submit(record: RunRecord): Promise<boolean>;
  /** Commits what is queued now (shutdown). */
  close(): void | Promise<void>;
}

export interface RecorderDeps extends RecorderHooks {
  repo: ActionsRepo;
  /** The batch's transaction; it need not wait for the disk (see RunsDeps.recordTx). */
  tx: Transact;
}

interface EndpointVariables {
  values: Record<string, unknown>;
  /** Records submitted and not yet committed or failed: while any, `values` is ahead of the table. */
  pending: number;
  generation: number;
}

/**
 * Records runs in group commits (src/db/db.group-commit.ts): the rows, variables and settled
 * owed rows of every run finished in one event-loop turn commit in one transaction, instead of
 * one transaction each.
 *
 * The next run of an endpoint starts before the previous one's record has committed, so it
 * reads the endpoint's variables from memory: the committed values with every submitted run's
 * stores applied in submission (capture) order. Records commit in that same order, so a record
 * commits in the same batch as, or a later batch than, every record whose values its run read.
 * When a batch fails, the values its runs wrote were never committed: the endpoint's generation
 * moves on and records of runs that read the old generation are not written either (their owed
 * rows stay, and recovery runs them again from the committed values).
 */
export function createRunRecorder(
  deps: RecorderDeps,
): Omit<RunRecorder, "variablesOf"> & { variablesOf(endpointId: string): VariablesAt } {
  const variables = new Map<string, EndpointVariables>();
  const generations = new Map<string, number>();

  const entryOf = (endpointId: string): EndpointVariables => {
    let entry = variables.get(endpointId);
    if (!entry) {
      const generation = generations.get(endpointId) ?? 0;
      entry = { values: deps.repo.variables(endpointId), pending: 0, generation };
      variables.set(endpointId, entry);
    }
    return entry;
  };
  /**
   * Once nothing of an endpoint is pending the table holds its values: the entry goes, so memory
   * holds only the variables of endpoints with records in flight.
   */
  const settled = (batch: readonly RunRecord[]) => {
    for (const record of batch) {
      const entry = variables.get(record.endpointId);
      if (!entry || entry.generation !== record.generation) continue;
      entry.pending -= 1;
      if (entry.pending === 0) variables.delete(record.endpointId);
    }
  };

  const group = createGroupCommit<RunRecord, boolean>({
    tx: deps.tx,
    commit(batch) {
      // The last value of each variable in the batch is the one that counts: a counter set by
      // 500 runs of a batch is written once.
      const stores = new Map<string, Map<string, { value: unknown; at: string }>>();
      const kept = batch.map((record) => {
        const { endpointId } = record;
        if ((generations.get(endpointId) ?? 0) !== record.generation) return false;
        deps.repo.settleDue(record.requestId);
        if (record.stores.length > 0) {
          const ofEndpoint = stores.get(endpointId) ?? new Map();
          stores.set(endpointId, ofEndpoint);
          for (const { name, value } of record.stores) {
            ofEndpoint.set(name, { value, at: record.createdAt });
          }
        }
        return deps.repo.insertRun(record);
      });
      for (const [endpointId, values] of stores) {
        // The runs happened (their requests were sent), so their values count even when a
        // captured request was deleted meanwhile; an endpoint deleted meanwhile takes none.
        if (!deps.repo.endpointLive(endpointId)) continue;
        for (const [name, { value, at }] of values)
          deps.repo.setVariable(endpointId, name, value, at);
      }
      return kept;
    },
    onCommitted(batch, kept) {
      settled(batch);
      for (let i = 0; i < batch.length; i++) {
        const record = batch[i];
        if (record && kept[i]) deps.committed(record);
      }
    },
    onRolledBack(batch) {
      settled(batch);
      for (const endpointId of new Set(batch.map((record) => record.endpointId))) {
        generations.set(endpointId, (generations.get(endpointId) ?? 0) + 1);
        variables.delete(endpointId);
      }
    },
    onCommittedError: deps.onHookError,
  });

  return {
    /**
     * The variables a run of the endpoint starts from (its own copy) and their generation, to
     * hand back with the run's record.
     */
    variablesOf(endpointId: string): VariablesAt {
      const entry = variables.get(endpointId);
      if (entry) return { values: { ...entry.values }, generation: entry.generation };
      // Nothing pending: the table is current (and stays so until this run's record is queued).
      const generation = generations.get(endpointId) ?? 0;
      return { values: deps.repo.variables(endpointId), generation };
    },
    /** The generation a record made now belongs to (a run that read no variables). */
    generationOf: (endpointId: string) =>
      variables.get(endpointId)?.generation ?? generations.get(endpointId) ?? 0,
    /**
     * Queues the run's record; its stores are what the endpoint's next run reads from now on.
     * Resolves true once committed, false when not recorded (request gone, or a failed batch
     * came before it); rejects when its own batch failed.
     */
    submit(record: RunRecord): Promise<boolean> {
      const entry = entryOf(record.endpointId);
      if (entry.generation === record.generation) {
        entry.pending += 1;
        for (const { name, value } of record.stores) entry.values[name] = value ?? null;
      }
      return group.submit(record);
    },
    /** Commits what is queued now (shutdown). */
    close: () => group.close(),
  };
}
