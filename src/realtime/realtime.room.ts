import type { AppDeps } from "../deps.ts";
import { createRealtimeHub, type RealtimeLimits } from "./realtime.channel.service.ts";
import { PUSHED_BODY_LIMIT } from "./realtime.payload.model.ts";
import { createRealtimeStore } from "./realtime.repo.ts";

/** The job that closes sockets silent past the heartbeat window. */
export const IDLE_SOCKETS_JOB = "realtime.idle-sockets";

/**
 * Builds the realtime room once per app and connects it to the rest through the bus: stored
 * captures fan out, a revoked key closes its sockets, a deleted endpoint ends its channels, and
 * shutdown closes every socket (a stopping server would otherwise wait for them).
 */
export function createRealtimeRoom(deps: AppDeps, overrides: Partial<RealtimeLimits> = {}) {
  const limits: RealtimeLimits = {
    heartbeatTimeoutMs: deps.config.realtime_heartbeat_timeout,
    maxBufferedBytes: deps.config.realtime_max_buffered_bytes,
    bodyLimit: PUSHED_BODY_LIMIT,
    replayPageSize: 200,
    maxPendingEvents: 10_000,
    maxChannelsPerSocket: 100,
    ...overrides,
  };
  const hub = createRealtimeHub({
    store: createRealtimeStore(deps.db),
    clock: deps.clock,
    logger: deps.logger,
    plans: deps.config.plans,
    limits,
  });
  deps.bus.on("request.captured", ({ request }) => hub.captured(request));
  deps.bus.on("api_key.revoked", ({ apiKeyId }) => hub.apiKeyRevoked(apiKeyId));
  deps.bus.on("endpoint.deleted", ({ endpointId }) => hub.endpointDeleted(endpointId));
  deps.bus.on("server.stopping", () => hub.closeAll());
  deps.scheduler.every(IDLE_SOCKETS_JOB, "*/5 * * * * *", () => hub.closeIdle());
  return { hub };
}

export type RealtimeRoom = ReturnType<typeof createRealtimeRoom>;
