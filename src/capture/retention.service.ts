import { type Clock, isoAt } from "../shared/clock.ts";
import type { PlanTable } from "../shared/plans.ts";
import type { CaptureStore } from "./capture.store.ts";

const DAY_MS = 86_400_000;
/** Endpoints read per page while walking them all. */
const ENDPOINT_PAGE = 500;
/** Expired anonymous endpoints read per query. */
const EXPIRED_PAGE = 100;

/** What the sweep borrows from the endpoints room, which owns anonymous endpoints. */
export interface ExpiredEndpoints {
  /** Ids of anonymous endpoints expired at `nowIso`, at most `limit`. */
  listExpiredAnonymous(nowIso: string, limit: number): Promise<string[]>;
  /** Deletes an anonymous endpoint at once (its requests are drained); false when already gone. */
  deleteAnonymous(endpointId: string): Promise<boolean>;
}

export interface RetentionDeps {
  repo: Pick<CaptureStore, "endpointsAfter" | "deleteRequestsBefore">;
  expired: ExpiredEndpoints;
  clock: Clock;
  plans: PlanTable;
  /**
   * Told about each expired anonymous endpoint once it is gone for readers (live clients may be
   * watching it; its requests are drained in the background).
   */
  onEndpointRemoved(endpointId: string): void;
  /** Lets queued work (captures) run between batches. */
  yieldTurn(): Promise<void>;
  /** Rows deleted per transaction. */
  batchSize?: number;
}

export interface SweepReport {
  requestsDeleted: number;
  endpointsDeleted: number;
}

/**
 * The retention sweep (decisions.md §11): deletes expired anonymous endpoints (one short write
 * each; their requests are drained as any deleted endpoint's), then every live endpoint's
 * requests older than its plan's `retention_days`, with their forward deliveries, keeping each
 * endpoint's request counter exact. Deletes run in bounded batches, yielding between them, so
 * captures keep being committed while a large backlog is cleared.
 */
export async function sweepRetention(deps: RetentionDeps): Promise<SweepReport> {
  const now = deps.clock.now();
  const report: SweepReport = { requestsDeleted: 0, endpointsDeleted: 0 };
  await removeExpiredAnonymous(deps, now, report);
  await deleteExpiredRequests(deps, now, report);
  return report;
}

async function removeExpiredAnonymous(deps: RetentionDeps, now: number, report: SweepReport) {
  for (;;) {
    const ids = await deps.expired.listExpiredAnonymous(isoAt(now), EXPIRED_PAGE);
    if (ids.length === 0) return;
    for (const id of ids) {
      if (await deps.expired.deleteAnonymous(id)) {
        report.endpointsDeleted += 1;
        deps.onEndpointRemoved(id);
      }
    }
    await deps.yieldTurn();
  }
}

async function deleteExpiredRequests(deps: RetentionDeps, now: number, report: SweepReport) {
  const batch = deps.batchSize ?? 1000;
  let afterId = "";
  for (;;) {
    const endpoints = await deps.repo.endpointsAfter(afterId, ENDPOINT_PAGE);
    const last = endpoints.at(-1);
    if (!last) return;
    for (const endpoint of endpoints) {
      const cutoff = isoAt(now - deps.plans[endpoint.plan].retention_days * DAY_MS);
      report.requestsDeleted += await drain(deps, batch, () =>
        deps.repo.deleteRequestsBefore(endpoint.id, cutoff, batch),
      );
    }
    afterId = last.id;
    await deps.yieldTurn();
  }
}

/** Repeats one bounded delete until it deletes less than a full batch; returns the total. */
async function drain(deps: RetentionDeps, batch: number, deleteBatch: () => Promise<number>) {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batch) return total;
    await deps.yieldTurn();
  }
}
