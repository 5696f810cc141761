import { Elysia } from "elysia";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import type { ClientIpResolver } from "../http/http.client-ip.ts";
import { type Room, subscription } from "../room.ts";
import { DISK_SAMPLE_SECONDS } from "../shared/disk-guard.ts";
import { createSealer } from "../shared/sealed.ts";
import { createVerificationChecker } from "../verification/verification.checker.ts";
import type { SignedRequest } from "../verification/verification.model.ts";
import {
  VERIFICATION_SEAL_PURPOSE,
  verificationOwner,
} from "../verification/verification.settings.ts";
import { createCaptureLimits } from "./capture.limits.ts";
import type { CapturedRequest, CaptureEndpoint, ResponseOverride } from "./capture.model.ts";
import { type CapturePostgresTxPorts, createCapturePostgresStore } from "./capture.postgres.ts";
import { createCaptureRepo } from "./capture.repo.ts";
import { captureDirectRoutes, captureRoutes } from "./capture.routes.ts";
import { type CaptureService, createCaptureService } from "./capture.service.ts";
import { createCaptureSqliteStore } from "./capture.sqlite.ts";
import type { CaptureStore } from "./capture.store.ts";
import { type CaptureTally, createCaptureTally } from "./capture.tally.ts";
import {
  type CaptureWriter,
  type CommittedCapture,
  createCaptureWriter,
} from "./capture.writer.ts";
import {
  type CapturePostgresWriterOptions,
  createCapturePostgresWriter,
} from "./capture-writer.postgres.ts";
import { createDrainJob, type DrainPorts } from "./drain.schedule.ts";
import { createRequestsRepo } from "./requests.repo.ts";
import { type RequestsRoutesPorts, requestsRoutes } from "./requests.routes.ts";
import { retentionJob } from "./retention.schedule.ts";
import type { ExpiredEndpoints } from "./retention.service.ts";
import { createSearchIndexer } from "./search-index.service.ts";
import { createSearchMergeJob } from "./search-merge.schedule.ts";

/** The signature check of captures: the endpoint's setting, sealed to its row. */
function verifier(deps: CaptureRoomDeps, ports: CaptureRoomPorts) {
  const check = createVerificationChecker({
    sealer: createSealer(deps.secretKey, VERIFICATION_SEAL_PURPOSE),
    resolveSecrets: ports.resolveSecretsNow,
    now: () => deps.clock.now(),
  });
  return (endpoint: CaptureEndpoint, request: SignedRequest) =>
    check(
      endpoint.verification,
      {
        organizationId: endpoint.organizationId,
        owner: verificationOwner("endpoint", endpoint.id),
      },
      request,
    );
}

/**
 * WAL pages after which the committing connection checkpoints (SQLite's default). Measured
 * against larger values with a scheduled checkpoint, and against checkpoints on a thread of
 * their own: no better p99, and the thread's checkpoints never let the WAL restart under
 * steady load (docs/performance.md).
 */
const AUTOCHECKPOINT_PAGES = 1000;
/** Every 10 s: what a burst left in the WAL goes to the database file once things are quiet. */
const CHECKPOINT_PATTERN = "*/10 * * * * *";
/** Every 30 s: captures not yet in the search index (fewer than a chunk) are added (a search adds them first anyway). */
const SEARCH_INDEX_PATTERN = "*/30 * * * * *";
/** Every 5 s: refusal counts reach the endpoints' counters (one small transaction). */
const REFUSAL_FLUSH_PATTERN = "*/5 * * * * *";
/** Every minute: one info line per endpoint that captured or refused anything. */
const SUMMARY_PATTERN = "0 * * * * *";

export type CaptureRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "bus" | "config" | "disk" | "scheduler" | "secretKey"
> & {
  /** PostgreSQL mode: stored requests are read, swept and drained there instead of in `db`. */
  postgres?: PostgresDb;
};

export interface CaptureRoomPorts
  extends Omit<RequestsRoutesPorts, "wakeDrain">,
    ExpiredEndpoints,
    DrainPorts {
  resolveClientIp: ClientIpResolver;
  /**
   * Writes the outbox rows of the stored captures that are to be forwarded, in the capture
   * batch's own transaction (no extra fsync); returns how many.
   */
  enqueueForwards(tx: TxHandle, captures: readonly CommittedCapture[]): number;
  /** Notes, in the capture batch's own transaction, the action runs the stored captures are owed. */
  oweActionRuns(tx: TxHandle, captures: readonly CommittedCapture[]): void;
  /** Tells the outbox, after the commit, that deliveries are due. */
  wakeDeliveries(): void;
  /** Deletes the forward deliveries of requests retention or the drain removed, in its transaction. */
  forgetForwards(tx: TxHandle, requestIds: readonly string[]): void;
  /**
   * PostgreSQL twins of the ports above that write in capture's transactions; each is called
   * when given (the rooms lending them have no PostgreSQL store yet, so none is wired).
   */
  postgresTx?: CapturePostgresTxPorts &
    Pick<CapturePostgresWriterOptions, "enqueueForwards" | "oweActionRuns">;
  /**
   * The secrets room's lookup without waiting, for a `{{NAME}}` verification secret at check
   * time: a capture is checked synchronously on its hot path.
   */
  resolveSecretsNow?(organizationId: string): (name: string) => string | undefined;
}

/** What capture lends: reads of stored requests, and the hook that takes over answers. */
export interface CapturePorts {
  /** The endpoint's stored request with this id, or null. */
  findRequest(endpointId: string, requestId: string): Promise<CapturedRequest | null>;
  /** Requests of the endpoint stored after `afterRequestId` (null: from the oldest), oldest first. */
  listRequestsAfter(
    endpointId: string,
    afterRequestId: string | null,
    limit: number,
  ): Promise<CapturedRequest[]>;
  /** Registers the room that may change capture answers (null removes it). One at a time. */
  setResponseOverride(override: ResponseOverride | null): void;
}

/** What the capture routes need: the use cases, the request limits and the client-IP rule. */
export interface CaptureParts {
  service: CaptureService;
  maxBodyBytes: number;
  resolveClientIp: ClientIpResolver;
  /** Counts captures and refusals per endpoint for the log and the endpoint's refusal counters. */
  tally: CaptureTally;
}

/**
 * Builds the capture room: capture URLs on the group-commit writer (its transactions publish
 * `request.captured` after each commit), reading stored requests, the checkpoint job and the
 * retention sweep. Its stop closes the writer once the server has finished in-flight requests.
 */
export function createCaptureRoom(
  deps: CaptureRoomDeps,
  ports: CaptureRoomPorts,
): Room<CapturePorts> {
  const logger = deps.logger.child({ scope: "capture" });
  const repo = createCaptureRepo(deps.db);
  repo.setAutoCheckpoint(AUTOCHECKPOINT_PAGES);
  const requests = createRequestsRepo(deps.db);
  const store: CaptureStore = deps.postgres
    ? createCapturePostgresStore(deps.postgres, ports.postgresTx)
    : createCaptureSqliteStore(
        deps.db,
        { forgetForwards: ports.forgetForwards, finishDrain: ports.finishDrain },
        { capture: repo, requests },
      );
  const searchIndex = createSearchIndexer({
    indexNext: (limit) => requests.indexForSearch(limit),
    onError: (error) => logger.error("indexing captures for search failed", { error }),
  });
  /** Whether the batch being committed wrote forward deliveries (woken after its commit). */
  let forwardsQueued = false;
  const tally = createCaptureTally({
    clock: deps.clock,
    logger,
    store: deps.postgres
      ? (deltas) => {
          store
            .addRefusals(deltas)
            .catch((error) => logger.error("storing refusal counts failed", { error }));
        }
      : (deltas) => repo.addRefusals(deltas),
  });
  const onCommitted = (batch: readonly CommittedCapture[]) => {
    if (forwardsQueued) {
      forwardsQueued = false;
      ports.wakeDeliveries();
    }
    searchIndex.committed(batch.length);
    for (const { request, endpoint } of batch) {
      tally.accepted(endpoint);
      const { id, organizationId, slug, forwardUrl } = endpoint;
      deps.bus.publish("request.captured", {
        request,
        endpoint: { id, organizationId, slug, forwardUrl },
      });
    }
  };
  const onCommittedError = (error: unknown) =>
    logger.error("publishing captures failed", { error });
  const pgTx = ports.postgresTx;
  const writer: CaptureWriter = deps.postgres
    ? createCapturePostgresWriter({
        pg: deps.postgres,
        onCommitted,
        onCommittedError,
        enqueueForwards:
          pgTx?.enqueueForwards &&
          (async (tx, kept) => {
            const queued = (await pgTx.enqueueForwards?.(tx, kept)) ?? 0;
            forwardsQueued = queued > 0 || forwardsQueued;
            return queued;
          }),
        oweActionRuns: pgTx?.oweActionRuns,
      })
    : createCaptureWriter({
        tx: deps.db.tx,
        store: (batch, tx) => {
          const stored = repo.insertRows(batch.map((c) => c.request));
          const kept = stored.every(Boolean) ? batch : batch.filter((_, i) => stored[i]);
          forwardsQueued = ports.enqueueForwards(tx, kept) > 0 || forwardsQueued;
          ports.oweActionRuns(tx, kept);
          return stored;
        },
        onCommitted,
        onCommittedError,
      });
  const limits = createCaptureLimits(deps, repo);
  const service = createCaptureService({
    repo,
    writer,
    limits: limits.limits,
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    rateLimit: deps.config.capture_rate_limit,
    onOverrideError: (error) => logger.error("capture answer override failed", { error }),
    verify: verifier(deps, ports),
  });
  // Deleted rows stay in the search index as tombstones (migration 0019) until this merges them.
  const searchMerge = createSearchMergeJob(deps);
  const drain = createDrainJob(deps, store, ports, { onDrained: searchMerge.wake });
  const parts: CaptureParts = {
    service,
    maxBodyBytes: deps.config.max_body_bytes,
    resolveClientIp: ports.resolveClientIp,
    tally,
  };
  return {
    // Capture URLs first: the guard of the request-reading routes must never reach the hot path.
    routes: new Elysia({ name: "weir-capture-room" })
      .use(captureRoutes(parts))
      .use(requestsRoutes({ requests: store }, { ...ports, wakeDrain: drain.wake })),
    directRoutes: captureDirectRoutes(parts),
    jobs: [
      {
        name: "capture.checkpoint",
        scope: "node",
        pattern: CHECKPOINT_PATTERN,
        run: () => repo.checkpoint(),
      },
      {
        name: "capture.search-index",
        scope: "node",
        pattern: SEARCH_INDEX_PATTERN,
        run: () => searchIndex.catchUp(),
      },
      retentionJob(deps, store, ports, searchMerge.wake),
      drain.job,
      searchMerge.job,
      // The data dir's free space, for every write path (decisions.md §14).
      {
        name: "capture.disk-sample",
        scope: "node",
        intervalSeconds: DISK_SAMPLE_SECONDS,
        run: () => deps.disk.sampleOnSchedule(),
      },
      {
        name: "capture.refusals",
        scope: "node",
        pattern: REFUSAL_FLUSH_PATTERN,
        run: () => tally.flush(),
      },
      {
        name: "capture.summary",
        scope: "node",
        pattern: SUMMARY_PATTERN,
        run: () => tally.summarise(),
      },
    ],
    subscriptions: [
      limits.resyncOnSweep,
      // A deleted endpoint is gone for readers already; its requests are drained from now on.
      subscription("endpoint.deleted", () => drain.wake()),
    ],
    stop: async () => {
      await writer.close();
      searchIndex.catchUp();
      tally.flush();
      await drain.stop();
      await searchMerge.stop();
    },
    ports: {
      findRequest: (endpointId, requestId) => store.find(endpointId, requestId),
      listRequestsAfter: (endpointId, afterRequestId, limit) =>
        store.listAfter(endpointId, afterRequestId, limit),
      setResponseOverride: (override) => service.setResponseOverride(override),
    },
  };
}
