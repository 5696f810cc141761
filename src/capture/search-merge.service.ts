export interface SearchMergeDeps {
  /** One bounded merge step in its own transaction; false once there was nothing left to merge. */
  step(): boolean;
  /** Waits between steps, so captures commit in between; told how long the step took (ms). */
  pause(stepMs: number): Promise<void>;
  /** False once the app is stopping: the merge ends after its current step. */
  running(): boolean;
  now(): number;
  /** Steps per run at most; the rest is left for the next run. */
  maxSteps: number;
}

export interface SearchMergeReport {
  steps: number;
  /** The longest step, in ms: what a capture could have waited behind one. */
  slowestStepMs: number;
  /** True when the index was left fully merged (false: stopped, or the step budget ran out). */
  finished: boolean;
}

/**
 * Reclaims what deletes left in the search index (migration 0019): with FTS5's `deletemerge`
 * off, a deleted row is a tombstone until a merge rewrites its segment. This merges a few pages
 * per transaction, pausing between steps, until FTS5 reports nothing left to merge. Under a
 * steady stream of captures each new chunk of the index is one more segment to fold in, so a
 * run stops after `maxSteps` and says it did not finish.
 */
export async function mergeSearchIndex(deps: SearchMergeDeps): Promise<SearchMergeReport> {
  const report: SearchMergeReport = { steps: 0, slowestStepMs: 0, finished: false };
  while (deps.running() && report.steps < deps.maxSteps) {
    const started = deps.now();
    const merged = deps.step();
    const took = deps.now() - started;
    report.steps += 1;
    report.slowestStepMs = Math.max(report.slowestStepMs, took);
    if (!merged) {
      report.finished = true;
      break;
    }
    await deps.pause(took);
  }
  return report;
}
