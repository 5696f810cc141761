import type { AuthPorts } from "../auth/auth.room.ts";
import type { CapturePorts } from "../capture/capture.room.ts";
import type { AppDeps } from "../deps.ts";
import type { EndpointsPorts } from "../endpoints/endpoints.room.ts";
import { type Room, subscription } from "../room.ts";
import { createForwardsRepo } from "./forwards.repo.ts";
import { forwardsRoutes } from "./forwards.routes.ts";
import type { ForwardsDeps, SendDeps } from "./forwards.service.ts";
import { createForwarder } from "./forwards.worker.ts";

/** Every second: retries of failed forwards are started once due (deps.clock decides). */
const FORWARD_RETRY_PATTERN = "* * * * * *";

export type DeliveryRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "outbound" | "config"
>;

export interface DeliveryRoomPorts {
  guard: AuthPorts["guard"];
  requireEndpoint: EndpointsPorts["requireEndpoint"];
  findEndpointById: EndpointsPorts["findEndpointById"];
  findRequest: CapturePorts["findRequest"];
}

/**
 * Builds the delivery room: today the forwarder that re-sends captures to an endpoint's
 * forward_url (listening to `request.captured`), its retry job, forward records and replay.
 */
export function createDeliveryRoom(deps: DeliveryRoomDeps, ports: DeliveryRoomPorts): Room {
  const send: SendDeps = {
    forwards: createForwardsRepo(deps.db),
    clock: deps.clock,
    ids: deps.ids,
    outbound: deps.outbound,
    logger: deps.logger,
    timeoutMs: deps.config.forward_timeout_ms,
  };
  const forwards: ForwardsDeps = {
    requireEndpoint: ports.requireEndpoint,
    findRequest: ports.findRequest,
    send,
  };
  const forwarder = createForwarder({
    ...send,
    findRequest: ports.findRequest,
    findEndpointById: ports.findEndpointById,
  });
  return {
    routes: forwardsRoutes(forwards, ports),
    jobs: [
      {
        name: "forwards.retry",
        pattern: FORWARD_RETRY_PATTERN,
        run: () => forwarder.runDueRetries(),
      },
    ],
    subscriptions: [subscription("request.captured", (event) => forwarder.onCaptured(event))],
    stop: () => forwarder.stop(),
    ports: {},
  };
}
