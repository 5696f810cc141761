import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import type { RoomJob } from "../room.ts";
import type { CaptureStore } from "./capture.store.ts";
import { type DrainMarks, type DrainReport, drainHidden } from "./drain.service.ts";

/** The drain's job name in `deps.scheduler` (tests run it by name). */
export const DRAIN_JOB = "capture.drain";
/** The one-shot a delete or an empty arms, so the drain starts at once (through the scheduler). */
const WAKE_JOB = "capture.drain-wake";
/** A fallback: deletes and empties wake the drain at once; this catches what a wake missed. */
const DRAIN_INTERVAL_SECONDS = 60;
/** Requests deleted per transaction: a few milliseconds of write lock each. */
const DRAIN_BATCH = 100;

/**
 * Between batches the drain waits as long as the batch took (at least one turn): it holds the
 * write lock at most half the time, and captures queued meanwhile commit in between.
 */
export const pauseAfter = (batchMs: number) =>
  new Promise<void>((resolve) => {
    if (batchMs < 1) setImmediate(resolve);
    else setTimeout(resolve, batchMs);
  });

export interface DrainPorts extends DrainMarks {
  /** Removes the forward deliveries of deleted requests, in the caller's transaction. */
  forgetForwards(tx: TxHandle, requestIds: readonly string[]): void;
}

/**
 * The drain of deleted and emptied endpoints as a job of the capture room, plus `wake()` for
 * whoever just wrote a mark. Runs never overlap: a wake during a run makes it go round again.
 */
export function createDrainJob(
  deps: Pick<AppDeps, "clock" | "logger" | "scheduler">,
  store: Pick<CaptureStore, "drainBatch">,
  marks: Pick<DrainMarks, "listDraining">,
  options: { batchSize?: number; onDrained?: () => void } = {},
) {
  const logger = deps.logger.child({ scope: "drain" });
  let stopped = false;
  let current: Promise<DrainReport> | null = null;
  let again = false;

  const once = () =>
    drainHidden({
      store,
      marks,
      pause: pauseAfter,
      running: () => !stopped,
      now: () => performance.now(),
      batchSize: options.batchSize ?? DRAIN_BATCH,
    });

  const run = (): Promise<DrainReport> => {
    if (current) {
      again = true;
      return current;
    }
    current = (async () => {
      const total: DrainReport = { requestsDeleted: 0, endpointsDeleted: 0 };
      try {
        do {
          again = false;
          const report = await once();
          total.requestsDeleted += report.requestsDeleted;
          total.endpointsDeleted += report.endpointsDeleted;
        } while (again && !stopped);
      } finally {
        current = null;
      }
      if (total.requestsDeleted > 0) options.onDrained?.();
      if (total.requestsDeleted > 0 || total.endpointsDeleted > 0) {
        logger.info("drained deleted requests", {
          requests_deleted: total.requestsDeleted,
          endpoints_deleted: total.endpointsDeleted,
        });
      }
      return total;
    })();
    return current;
  };

  const job: RoomJob = {
    name: DRAIN_JOB,
    scope: "cluster",
    intervalSeconds: DRAIN_INTERVAL_SECONDS,
    run,
    runNow: true,
  };
  return {
    job,
    /** Starts a drain now (or another round after the running one), through the scheduler. */
    wake(): void {
      if (stopped || deps.scheduler.has(WAKE_JOB)) return;
      deps.scheduler.once(WAKE_JOB, deps.clock.now(), run);
    },
    /** Ends the drain after its current batch; resolves once it has. */
    async stop(): Promise<void> {
      stopped = true;
      await current?.catch(() => {});
    },
  };
}
