import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DrainingEndpoint } from "../endpoints/endpoints.model.ts";
import { type CaptureRepo, createCaptureRepo } from "./capture.repo.ts";
import type { CaptureStore } from "./capture.store.ts";
import { createDrainRepo } from "./drain.repo.ts";
import { createRequestsRepo, type RequestsRepo } from "./requests.repo.ts";
import { createRetentionRepo } from "./retention.repo.ts";

/** What the SQLite store's transactions write in other rooms' tables, through their ports. */
export interface CaptureSqliteTxPorts {
  /** Deletes the forward deliveries of requests retention or the drain removed, in its transaction. */
  forgetForwards?(tx: TxHandle, requestIds: readonly string[]): void;
  /** In the transaction that drained an endpoint's last hidden request: ends its drain. */
  finishDrain?(tx: TxHandle, endpoint: DrainingEndpoint): void;
}

/**
 * The capture store over the SQLite repos, which keep their synchronous statements and
 * transactions: each method runs them as before and hands back the result as a promise.
 */
export function createCaptureSqliteStore(
  db: Db,
  ports: CaptureSqliteTxPorts = {},
  /** The repos the room already holds (the hot path's and the search indexer's), to share their statements. */
  repos: { capture?: CaptureRepo; requests?: RequestsRepo } = {},
): CaptureStore {
  const capture = repos.capture ?? createCaptureRepo(db);
  const requests = repos.requests ?? createRequestsRepo(db);
  const retention = createRetentionRepo(db, (tx, ids) => ports.forgetForwards?.(tx, ids));
  const drain = createDrainRepo(db);
  return {
    findEndpoint: async (slug) => capture.findEndpoint(slug),
    countStored: async (endpointId) => capture.countRequests(endpointId),
    anonymousStoredBytes: async () => capture.anonymousStoredBytes(),
    setAnsweredStatus: async (requestId, status) => capture.setAnsweredStatus(requestId, status),
    addRefusals: async (deltas) => capture.addRefusals(deltas),
    listAfter: async (endpointId, afterRequestId, limit) =>
      requests.listAfter(endpointId, afterRequestId, limit),
    listPage: async (endpointId, offset, limit) => requests.listPage(endpointId, offset, limit),
    count: async (endpointId) => requests.count(endpointId),
    listMatching: async (endpointId, filter, offset, limit) =>
      requests.listMatching(endpointId, filter, offset, limit),
    countMatching: async (endpointId, filter) => requests.countMatching(endpointId, filter),
    find: async (endpointId, requestId) => requests.find(endpointId, requestId),
    insert: async (request) => requests.insert(request),
    endpointsAfter: async (afterId, limit) => retention.endpointsAfter(afterId, limit),
    deleteRequestsBefore: async (endpointId, cutoffIso, limit) =>
      retention.deleteRequestsBefore(endpointId, cutoffIso, limit),
    // Background batches commit without waiting for the disk: a batch lost in a power cut is
    // drained again, its endpoint's mark being still there.
    drainBatch: async (endpoint, limit) =>
      db.tx(
        (tx) => {
          const throughId = endpoint.deleted ? null : endpoint.clearedThroughId;
          const ids = drain.deleteHidden(endpoint.endpointId, throughId, limit);
          if (ids.length > 0) ports.forgetForwards?.(tx, ids);
          const finished = ids.length < limit;
          if (finished) ports.finishDrain?.(tx, endpoint);
          return { deleted: ids.length, finished };
        },
        { durable: false },
      ),
  };
}
