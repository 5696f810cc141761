import type { AuthPorts } from "../auth/auth.room.ts";
import type { CapturePorts } from "../capture/capture.room.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { EndpointsPorts } from "../endpoints/endpoints.room.ts";
import type { Room } from "../room.ts";
import { createFailureLog } from "./delivery.failure-log.ts";
import type { DeliveryPorts } from "./delivery.ports.ts";
import { createDeliveryPostgresStore } from "./delivery.postgres.ts";
import { createDeliveryRepo } from "./delivery.repo.ts";
import { createForwardsPostgresStore } from "./forwards.postgres.ts";
import { createForwardsSqliteStore } from "./forwards.repo.ts";
import { forwardsRoutes } from "./forwards.routes.ts";
import { type ForwardsDeps, forwardKind, type SendDeps } from "./forwards.service.ts";

export type ForwardsRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "outbound" | "config"
> &
  RoomStorage;

export interface ForwardsRoomPorts {
  guard: AuthPorts["guard"];
  requireEndpoint: EndpointsPorts["requireEndpoint"];
  findEndpointById: EndpointsPorts["findEndpointById"];
  findRequest: CapturePorts["findRequest"];
  registerKind: DeliveryPorts["registerKind"];
}

/**
 * Endpoint forwards on the delivery outbox: registers the `forward` kind (capture writes its
 * rows in the capture's own transaction), and serves forward records and replay.
 */
export function createForwardsRoom(deps: ForwardsRoomDeps, ports: ForwardsRoomPorts): Room {
  const timeoutMs = deps.config.forward_timeout_ms;
  ports.registerKind(
    "forward",
    forwardKind({
      findRequest: ports.findRequest,
      findEndpointById: ports.findEndpointById,
      timeoutMs,
    }),
  );
  const send: SendDeps = {
    forwards: deps.postgres
      ? createForwardsPostgresStore(deps.postgres, createDeliveryPostgresStore(deps.postgres))
      : createForwardsSqliteStore(sqliteOf(deps), createDeliveryRepo(sqliteOf(deps))),
    clock: deps.clock,
    ids: deps.ids,
    outbound: deps.outbound,
    logger: deps.logger,
    timeoutMs,
    logFailure: createFailureLog(deps.logger.child({ scope: "delivery" }), deps.clock),
  };
  const forwards: ForwardsDeps = {
    requireEndpoint: ports.requireEndpoint,
    findRequest: ports.findRequest,
    send,
  };
  return {
    routes: forwardsRoutes(forwards, ports),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {},
  };
}
