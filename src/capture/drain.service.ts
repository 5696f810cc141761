import type { TxHandle } from "../db/db.tx.ts";
import type { DrainingEndpoint } from "../endpoints/endpoints.model.ts";
import type { CaptureStore } from "./capture.store.ts";

/** Endpoints read per query while draining. */
const ENDPOINT_PAGE = 100;

/** What the drain borrows from the endpoints room, which owns the marks. */
export interface DrainMarks {
  /** Endpoints with hidden requests left to drain, at most `limit`. */
  listDraining(limit: number): Promise<DrainingEndpoint[]>;
  /** In the transaction that drained an endpoint's last hidden request: ends its drain. */
  finishDrain(tx: TxHandle, endpoint: DrainingEndpoint): void;
}

export interface DrainDeps {
  /** Deletes one batch in one transaction, with its forward deliveries and, last, the mark's end. */
  store: Pick<CaptureStore, "drainBatch">;
  marks: Pick<DrainMarks, "listDraining">;
  /** Waits between batches, so captures commit in between; told how long the batch took (ms). */
  pause(batchMs: number): Promise<void>;
  /** False once the app is stopping: the drain ends after its current batch (it resumes at start). */
  running(): boolean;
  now(): number;
  /** Requests deleted per transaction. */
  batchSize: number;
}

export interface DrainReport {
  requestsDeleted: number;
  endpointsDeleted: number;
}

/**
 * Drains what deletes and empties hid (decisions.md §11; docs/api.md): for each marked endpoint,
 * its hidden requests go `batchSize` at a time, one short transaction each with their forward
 * deliveries (search-index rows go by trigger), pausing between batches. The transaction that
 * deletes the last of them also ends the mark (a deleted endpoint's row goes then). The marks
 * are rows, so a drain cut short by a crash or a stop resumes at the next start.
 */
export async function drainHidden(deps: DrainDeps): Promise<DrainReport> {
  const report: DrainReport = { requestsDeleted: 0, endpointsDeleted: 0 };
  while (deps.running()) {
    const endpoints = await deps.marks.listDraining(ENDPOINT_PAGE);
    if (endpoints.length === 0) break;
    for (const endpoint of endpoints) {
      if (!deps.running()) break;
      await drainOne(deps, endpoint, report);
    }
  }
  return report;
}

async function drainOne(deps: DrainDeps, endpoint: DrainingEndpoint, report: DrainReport) {
  while (deps.running()) {
    const started = deps.now();
    const { deleted, finished } = await deps.store.drainBatch(endpoint, deps.batchSize);
    report.requestsDeleted += deleted;
    if (finished) {
      if (endpoint.deleted) report.endpointsDeleted += 1;
      return;
    }
    await deps.pause(deps.now() - started);
  }
}
