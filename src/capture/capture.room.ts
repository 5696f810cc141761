import type { AppDeps } from "../deps.ts";
import { type ClientIpResolver, createClientIpResolver } from "./capture.client-ip.ts";
import { createCaptureRepo } from "./capture.repo.ts";
import { type CaptureService, createCaptureService } from "./capture.service.ts";
import { startCaptureStore } from "./capture.store.ts";
import { createCaptureWriter } from "./capture.writer.ts";
import { scheduleRetention } from "./retention.schedule.ts";

/**
 * WAL pages after which a commit on the main connection (the other rooms' writes) checkpoints
 * inside that commit, on the event loop. Raised well above the default 1000: the capture store
 * thread checkpoints as it writes, so this only bounds a WAL that thread failed to keep short.
 */
const AUTOCHECKPOINT_PAGES = 10_000;
/** Every 10 s: a checkpoint for what the store thread's own size rule left (e.g. a quiet spell). */
const CHECKPOINT_PATTERN = "*/10 * * * * *";

/** What the capture routes need: the use cases, the request limits and the client-IP rule. */
export interface CaptureRoom {
  service: CaptureService;
  maxBodyBytes: number;
  resolveClientIp: ClientIpResolver;
  /** Commits what is queued and refuses new captures (server stop). */
  stop(): void;
}

/**
 * Builds the capture room on the app's deps: the group-commit writer publishing
 * `request.captured` after each commit, the scheduled checkpoint and the retention sweep.
 */
export function createCaptureRoom(deps: AppDeps): CaptureRoom {
  const logger = deps.logger.child({ scope: "capture" });
  const repo = createCaptureRepo(deps.db.sqlite);
  repo.setAutoCheckpoint(AUTOCHECKPOINT_PAGES);
  const store = startCaptureStore({
    dataDir: deps.config.data_dir,
    durability: deps.config.durability,
    onError: (message) => logger.error("capture store thread failed", { error: message }),
  });
  const writer = createCaptureWriter({
    store: (requests) => store.store(requests),
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
  });
  deps.scheduler.every("capture.checkpoint", CHECKPOINT_PATTERN, () => store.checkpoint());
  scheduleRetention(deps);
  return {
    service,
    maxBodyBytes: deps.config.max_body_bytes,
    resolveClientIp: createClientIpResolver(deps.config.trusted_proxies),
    stop: () => {
      writer.close();
      store.close();
    },
  };
}
