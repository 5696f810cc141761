import type { AppDeps } from "../deps.ts";
import { type Room, subscription } from "../room.ts";
import { createRealtimeHub, type RealtimeStore } from "./realtime.channel.service.ts";
import { PUSHED_BODY_LIMIT } from "./realtime.payload.model.ts";
import { ACTIONS_COMPLETED } from "./realtime.protocol.model.ts";
import { realtimeRoutes, type SocketAuth } from "./realtime.routes.ts";

/** The job that closes sockets silent past the heartbeat window. */
export const IDLE_SOCKETS_JOB = "realtime.idle-sockets";
/**
 * The job that re-checks the token of every live socket. `weir admin set-plan` and
 * `reset-password` change the data from another process, and tokens expire with no event:
 * so a socket keeps rights it lost for at most this period (docs/realtime.md).
 */
export const RIGHTS_RECHECK_JOB = "realtime.rights-recheck";
const RIGHTS_RECHECK_SECONDS = 10;

export type RealtimeRoomDeps = Pick<AppDeps, "clock" | "logger" | "config">;

/**
 * What realtime borrows: socket authentication from auth, the organization-scoped endpoint
 * lookup from endpoints, and the catch-up reads of stored requests from capture and of their
 * action runs from actions.
 */
export interface RealtimeRoomPorts extends RealtimeStore {
  auth: SocketAuth;
}

/**
 * Builds the realtime room, connected to the rest through the bus: stored captures fan out, a
 * revoked key closes its sockets, a deleted endpoint ends its channels, and shutdown closes every
 * socket (a stopping server would otherwise wait for them).
 */
export function createRealtimeRoom(deps: RealtimeRoomDeps, ports: RealtimeRoomPorts): Room {
  const hub = createRealtimeHub({
    store: {
      findEndpoint: ports.findEndpoint,
      listAfter: ports.listAfter,
      runResultsOf: ports.runResultsOf,
    },
    rights: { recheck: ports.auth.recheckToken },
    clock: deps.clock,
    logger: deps.logger,
    plans: deps.config.plans,
    limits: {
      heartbeatTimeoutMs: deps.config.realtime_heartbeat_timeout,
      maxBufferedBytes: deps.config.realtime_max_buffered_bytes,
      bodyLimit: PUSHED_BODY_LIMIT,
      replayPageSize: 200,
      maxPendingEvents: 10_000,
      maxChannelsPerSocket: 100,
    },
  });
  return {
    routes: realtimeRoutes({ hub, auth: ports.auth }),
    jobs: [
      {
        name: IDLE_SOCKETS_JOB,
        scope: "node",
        pattern: "*/5 * * * * *",
        run: () => hub.closeIdle(),
      },
      {
        name: RIGHTS_RECHECK_JOB,
        scope: "node",
        intervalSeconds: RIGHTS_RECHECK_SECONDS,
        run: () => hub.recheckRights(),
      },
    ],
    subscriptions: [
      subscription("request.captured", ({ request }) => hub.captured(request)),
      subscription("actions.completed", ({ endpointId, requestId, results }) =>
        hub.pushAfterCaptures(endpointId, ACTIONS_COMPLETED, { request_id: requestId, results }),
      ),
      subscription("api_key.revoked", ({ apiKeyId }) => hub.apiKeyRevoked(apiKeyId)),
      subscription("membership.changed", ({ userId }) => {
        void hub.recheckRights((principal) => principal.userId === userId);
      }),
      subscription("endpoint.deleted", ({ endpointId }) => hub.endpointDeleted(endpointId)),
      subscription("server.stopping", () => hub.closeAll()),
    ],
    stop: () => {},
    ports: {},
  };
}
