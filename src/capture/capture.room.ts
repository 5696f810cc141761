import type { AppDeps } from "../deps.ts";
import { type ClientIpResolver, createClientIpResolver } from "../http/http.client-ip.ts";
import { createCaptureRepo } from "./capture.repo.ts";
import { type CaptureService, createCaptureService } from "./capture.service.ts";
import { createCaptureWriter } from "./capture.writer.ts";
import { scheduleRetention } from "./retention.schedule.ts";

/**
 * WAL pages after which the committing connection checkpoints (SQLite's default). Measured
 * against larger values with a scheduled checkpoint, and against checkpoints on a thread of
 * their own: no better p99, and the thread's checkpoints never let the WAL restart under
 * steady load (docs/performance.md).
 */
const AUTOCHECKPOINT_PAGES = 1000;
/** Every 10 s: what a burst left in the WAL goes to the database file once things are quiet. */
const CHECKPOINT_PATTERN = "*/10 * * * * *";

/** What the capture routes need: the use cases, the request limits and the client-IP rule. */
export interface CaptureRoom {
  service: CaptureService;
  maxBodyBytes: number;
  resolveClientIp: ClientIpResolver;
  /** Refuses new captures (server stop, once in-flight requests are done). */
  stop(): void;
}

/**
 * Builds the capture room on the app's deps: the group-commit writer (its transactions publish
 * `request.captured` after each commit), the checkpoint job and the retention sweep.
 */
export function createCaptureRoom(deps: AppDeps): CaptureRoom {
  const logger = deps.logger.child({ scope: "capture" });
  const repo = createCaptureRepo(deps.db.sqlite);
  repo.setAutoCheckpoint(AUTOCHECKPOINT_PAGES);
  const writer = createCaptureWriter({
    tx: deps.db.tx,
    store: (batch) => repo.insertRows(batch.map((c) => c.request)),
    onCommitted: (batch) => {
      for (const { request, endpoint } of batch) {
        const { id, organizationId, slug, forwardUrl } = endpoint;
        deps.bus.publish("request.captured", {
          request,
          endpoint: { id, organizationId, slug, forwardUrl },
        });
      }
    },
    onCommittedError: (error) => logger.error("publishing captures failed", { error }),
  });
  const service = createCaptureService({
    repo,
    writer,
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    rateLimit: deps.config.capture_rate_limit,
    onOverrideError: (error) => logger.error("capture answer override failed", { error }),
  });
  deps.scheduler.every("capture.checkpoint", CHECKPOINT_PATTERN, () => repo.checkpoint());
  scheduleRetention(deps);
  return {
    service,
    maxBodyBytes: deps.config.max_body_bytes,
    resolveClientIp: createClientIpResolver(deps.config.trusted_proxies),
    stop: () => writer.close(),
  };
}
