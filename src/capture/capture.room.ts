import { Elysia } from "elysia";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
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
import type { CapturePostgresTxPorts } from "./capture.postgres.ts";
import { captureDirectRoutes, captureRoutes } from "./capture.routes.ts";
import { type CaptureService, createCaptureService } from "./capture.service.ts";
import {
  type CaptureStorage,
  postgresCaptureStorage,
  type StorageHooks,
  sqliteCaptureStorage,
} from "./capture.storage.ts";
import { type CaptureTally, createCaptureTally } from "./capture.tally.ts";
import type { CommittedCapture } from "./capture.writer.ts";
import type { CapturePostgresWriterOptions } from "./capture-writer.postgres.ts";
import { createDrainJob, type DrainPorts } from "./drain.schedule.ts";
import { type RequestsRoutesPorts, requestsRoutes } from "./requests.routes.ts";
import { retentionJob } from "./retention.schedule.ts";
import type { ExpiredEndpoints } from "./retention.service.ts";

/** The signature check of captures: the endpoint's setting, sealed to its row. */
function verifier(deps: CaptureRoomDeps, resolveSecretsNow: CaptureStorage["resolveSecretsNow"]) {
  const check = createVerificationChecker({
    sealer: createSealer(deps.secretKey, VERIFICATION_SEAL_PURPOSE),
    resolveSecrets: resolveSecretsNow,
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

/** Every 5 s: refusal counts reach the endpoints' counters (one small transaction). */
const REFUSAL_FLUSH_PATTERN = "*/5 * * * * *";
/** Every minute: one info line per endpoint that captured or refused anything. */
const SUMMARY_PATTERN = "0 * * * * *";

export type CaptureRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "bus" | "config" | "disk" | "scheduler" | "secretKey"
> &
  RoomStorage;

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
  /** The secrets room's lookup, awaited (PostgreSQL fetches it before admitting a capture). */
  resolveSecrets?(organizationId: string): Promise<(name: string) => string | undefined>;
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
  /** PostgreSQL: fetches what admission reads, around each capture (SQLite has none). */
  prefetch?: CaptureStorage["prefetch"];
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
  /** Whether the batch being committed wrote forward deliveries (woken after its commit). */
  let forwardsQueued = false;
  const hooks: StorageHooks = {
    onCommitted: (batch) => onCommitted(batch),
    queued: () => {
      forwardsQueued = true;
    },
  };
  const side = deps.postgres
    ? postgresCaptureStorage(deps.postgres, ports, logger, hooks)
    : sqliteCaptureStorage(deps, sqliteOf(deps), ports, logger, hooks);
  const { store } = side;
  const counted = createCaptureTally({ clock: deps.clock, logger, store: side.storeRefusals });
  const onCommitted = (batch: readonly CommittedCapture[]) => {
    if (forwardsQueued) {
      forwardsQueued = false;
      ports.wakeDeliveries();
    }
    side.committed(batch.length);
    for (const { request, endpoint } of batch) {
      counted.accepted(endpoint);
      const { id, organizationId, slug, forwardUrl } = endpoint;
      deps.bus.publish("request.captured", {
        request,
        endpoint: { id, organizationId, slug, forwardUrl },
      });
    }
  };
  const limits = createCaptureLimits(deps, side.anonymousBytes, (error) =>
    logger.error("summing anonymous endpoints' stored bytes failed", { error }),
  );
  const service = createCaptureService({
    repo: side.admission,
    writer: side.writer,
    limits: limits.limits,
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    rateLimit: deps.config.capture_rate_limit,
    onOverrideError: (error) => logger.error("capture answer override failed", { error }),
    verify: verifier(deps, side.resolveSecretsNow),
  });
  const drain = createDrainJob(deps, store, ports, { onDrained: side.afterDelete });
  const parts: CaptureParts = {
    service,
    maxBodyBytes: deps.config.max_body_bytes,
    resolveClientIp: ports.resolveClientIp,
    tally: counted,
    prefetch: side.prefetch,
  };
  return {
    // Capture URLs first: the guard of the request-reading routes must never reach the hot path.
    routes: new Elysia({ name: "weir-capture-room" })
      .use(captureRoutes(parts))
      .use(requestsRoutes({ requests: store }, { ...ports, wakeDrain: drain.wake })),
    directRoutes: captureDirectRoutes(parts),
    jobs: [
      ...side.jobs,
      retentionJob(deps, store, ports, side.afterDelete),
      drain.job,
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
        run: () => counted.flush(),
      },
      {
        name: "capture.summary",
        scope: "node",
        pattern: SUMMARY_PATTERN,
        run: () => counted.summarise(),
      },
    ],
    subscriptions: [
      limits.resyncOnSweep,
      // A deleted endpoint is gone for readers already; its requests are drained from now on.
      subscription("endpoint.deleted", () => drain.wake()),
    ],
    stop: async () => {
      await side.writer.close();
      side.flush();
      counted.flush();
      await drain.stop();
      await side.stop();
    },
    ports: {
      findRequest: (endpointId, requestId) => store.find(endpointId, requestId),
      listRequestsAfter: (endpointId, afterRequestId, limit) =>
        store.listAfter(endpointId, afterRequestId, limit),
      setResponseOverride: (override) => service.setResponseOverride(override),
    },
  };
}
