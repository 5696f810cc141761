import type { CapturedRequest } from "../capture/capture.model.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { PlanTable } from "../shared/plans.ts";
import type { DueRun } from "./actions.repo.ts";
import type { ActionRuns } from "./actions.runs.ts";

/** Owed runs taken per tick of the recovery job. */
const RECOVERY_BATCH = 200;
/** A run owed this long is taken even though this process made the capture (a missed hand-over). */
const STALE_MS = 10 * 60_000;

/** The owed runs' rows (SQLite repo, or the PostgreSQL claims of actions-owed.postgres.ts). */
export interface OwedRuns {
  /** Owed runs of captures made before `beforeIso`, oldest first. */
  list(beforeIso: string, limit: number): Promise<DueRun[]>;
  /**
   * Whether `list` gives only runs whose lease lapsed (PostgreSQL: the node making a run holds
   * it, so a run owed since this process started may be another node's, dead or alive).
   */
  leased: boolean;
  settle(requestId: string): Promise<void>;
  /** Recovery is done with a listed run (made, settled or left to its process): its claim ends. */
  done(requestId: string): void;
}

export interface RecoveryDeps {
  owed: OwedRuns;
  runs: ActionRuns;
  findRequest(endpointId: string, requestId: string): Promise<CapturedRequest | null>;
  plans: PlanTable;
  clock: Clock;
  logger: Logger;
  /** When this process began: a run owed from before then was cut off by a restart. */
  startedAt: number;
}

/**
 * Runs the chains owed to captures a crash or restart came between the commit and the run of
 * (their `action_runs_due` row outlived the process). Returns how many were run.
 */
export async function recoverOwedRuns(deps: RecoveryDeps): Promise<number> {
  const now = deps.clock.now();
  const cutoff = deps.owed.leased ? now : Math.max(deps.startedAt, now - STALE_MS);
  let ran = 0;
  for (const due of await deps.owed.list(isoAt(cutoff), RECOVERY_BATCH)) {
    try {
      if (await recoverOne(deps, due)) ran += 1;
    } finally {
      deps.owed.done(due.requestId);
    }
  }
  return ran;
}

/** Makes one owed run, or settles it when nothing is owed any more; true when it was made. */
async function recoverOne(deps: RecoveryDeps, due: DueRun): Promise<boolean> {
  if (deps.runs.inFlight(due.requestId)) return false;
  const request = await deps.findRequest(due.endpointId, due.requestId);
  const allowed = deps.plans[due.plan].actions_per_endpoint > 0;
  // An emptied endpoint, a lowered plan or a chain since removed owes nothing any more.
  if (!request || !allowed || (await deps.runs.savedChain(due.endpointId)).length === 0) {
    await deps.owed.settle(due.requestId);
    return false;
  }
  try {
    await deps.runs.runOwed(due, due.endpointId, request);
    return true;
  } catch (error) {
    deps.logger.error("owed action run failed", { endpoint: due.endpointId, error });
    await deps.owed.settle(due.requestId);
    return false;
  }
}
