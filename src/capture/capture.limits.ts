import type { AppDeps } from "../deps.ts";
import { type RoomSubscription, subscription } from "../room.ts";
import type { CaptureLimits } from "./capture.service.ts";

/**
 * The instance-wide limits capture checks (decisions.md §14): the data dir's free space, read
 * from the sampled disk guard, and the anonymous switch and byte budget. The budget is counted
 * in memory from one sum at start: commits add to it, and it is summed again after the sweep
 * removes an expired anonymous endpoint (nothing else deletes anonymous requests).
 */
export function createCaptureLimits(
  deps: Pick<AppDeps, "config" | "disk">,
  repo: { anonymousStoredBytes(): number | Promise<number> },
  /** Told when an asynchronous sum fails (the last known sum stays in use). */
  onSumError: (error: unknown) => void = () => {},
): { limits: CaptureLimits; resyncOnSweep: RoomSubscription } {
  let anonymousBytes = 0;
  // SQLite sums at once; PostgreSQL's sum lands a moment later (the budget is a soft cap).
  const sum = () => {
    const bytes = repo.anonymousStoredBytes();
    if (typeof bytes === "number") anonymousBytes = bytes;
    else
      bytes.then((total) => {
        anonymousBytes = total;
      }, onSumError);
  };
  sum();
  let resyncQueued = false;
  const resync = () => {
    resyncQueued = false;
    sum();
  };
  const resyncOnSweep = subscription("endpoint.deleted", (event) => {
    // Several endpoints removed by one sweep are summed once, after the sweep's turn.
    if (event.organizationId !== null || resyncQueued) return;
    resyncQueued = true;
    setImmediate(resync);
  });
  const limits: CaptureLimits = {
    diskLow: () => deps.disk.isLow(),
    noteWritten: (bytes) => deps.disk.noteWritten(bytes),
    anonymousEnabled: () => deps.config.anonymous_endpoints === "on",
    anonymousFull: () => anonymousBytes >= deps.config.anonymous_max_bytes,
    anonymousStored(bytes) {
      anonymousBytes += bytes;
    },
  };
  return { limits, resyncOnSweep };
}
