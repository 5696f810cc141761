import type { AppDeps } from "../deps.ts";
import type { RoomJob } from "../room.ts";
import { pauseAfter } from "./drain.schedule.ts";
import { createSearchMergeRepo } from "./search-merge.repo.ts";
import { mergeSearchIndex, type SearchMergeReport } from "./search-merge.service.ts";

/** The merge's job name in `deps.scheduler` (tests run it by name). */
export const SEARCH_MERGE_JOB = "capture.search-merge";
/** The one-shot the drain and retention arm after deleting rows (through the scheduler). */
const WAKE_JOB = "capture.search-merge-wake";
/** A fallback: picks up a run that a wake missed or that stopped at its step budget. */
const MERGE_INTERVAL_SECONDS = 600;
/**
 * Output pages per merge step (~4 KB each). Measured on 60k rows with 92 % deleted: 1–2 pages
 * take 1–2 ms at the median, up to ~15 ms when a step skips many deleted entries
 * (docs/performance.md, "Endpoints with a large history").
 */
const MERGE_PAGES = 2;
/** Steps per run at most (~80k pages, several times a 60k-row index). */
const MERGE_MAX_STEPS = 40_000;

/**
 * The search index's background merge as a job of the capture room, plus `wake()` for the drain
 * and retention once they deleted rows. It merges only when woken (a merge of an index with no
 * tombstones would still fold every segment into one, rewriting all of it for nothing); runs
 * never overlap, and a wake during a run makes it go round again.
 */
export function createSearchMergeJob(
  deps: Pick<AppDeps, "db" | "clock" | "logger" | "scheduler">,
  options: { pages?: number; maxSteps?: number } = {},
) {
  const logger = deps.logger.child({ scope: "search-merge" });
  const repo = createSearchMergeRepo(deps.db);
  const pages = options.pages ?? MERGE_PAGES;
  let stopped = false;
  let owed = false;
  let current: Promise<SearchMergeReport | null> | null = null;

  const once = () =>
    mergeSearchIndex({
      step: () => repo.mergeStep(pages),
      pause: pauseAfter,
      running: () => !stopped,
      now: () => performance.now(),
      maxSteps: options.maxSteps ?? MERGE_MAX_STEPS,
    });

  const run = (): Promise<SearchMergeReport | null> => {
    if (current) return current;
    if (!owed || stopped) return Promise.resolve(null);
    current = (async () => {
      const total: SearchMergeReport = { steps: 0, slowestStepMs: 0, finished: false };
      try {
        while (owed && !stopped) {
          owed = false;
          const report = await once();
          total.steps += report.steps;
          total.slowestStepMs = Math.max(total.slowestStepMs, report.slowestStepMs);
          total.finished = report.finished;
          if (!report.finished) {
            // Stopped short: the fallback run carries on.
            owed = true;
            break;
          }
        }
      } finally {
        current = null;
      }
      logger.info("merged the search index", {
        steps: total.steps,
        pages_per_step: pages,
        slowest_step_ms: Math.round(total.slowestStepMs * 10) / 10,
        finished: total.finished,
      });
      return total;
    })();
    return current;
  };

  const job: RoomJob = {
    name: SEARCH_MERGE_JOB,
    scope: "cluster",
    intervalSeconds: MERGE_INTERVAL_SECONDS,
    run,
  };
  return {
    job,
    /** Deleted rows left tombstones: merges now (or again after the running merge). */
    wake(): void {
      if (stopped) return;
      owed = true;
      if (current || deps.scheduler.has(WAKE_JOB)) return;
      deps.scheduler.once(WAKE_JOB, deps.clock.now(), run);
    },
    /** Ends the merge after its current step; resolves once it has. */
    async stop(): Promise<void> {
      stopped = true;
      await current?.catch(() => {});
    },
  };
}
