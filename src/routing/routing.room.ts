import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { AppDeps } from "../deps.ts";
import type { Room } from "../room.ts";
import { createSealer } from "../shared/sealed.ts";
import { createBridgesRepo } from "./bridges.repo.ts";
import { bridgesRoutes } from "./bridges.routes.ts";
import type { BridgesDeps } from "./bridges.service.ts";
import { createSourcesRepo } from "./sources.repo.ts";
import { sourcesRoutes } from "./sources.routes.ts";
import type { SourcesDeps } from "./sources.service.ts";

export type RoutingRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "config" | "publicBaseUrl" | "outbound" | "secretKey" | "disk"
>;

export interface RoutingRoomPorts {
  guard: AuthPorts["guard"];
}

/** Builds the routing room's use-case deps, as its routes take them. */
function buildRoutingParts(deps: RoutingRoomDeps, ports: RoutingRoomPorts) {
  const sourcesRepo = createSourcesRepo(deps.db);
  const bridgesRepo = createBridgesRepo(deps.db);
  let routesVersion = 0;
  const routesChanged = () => {
    routesVersion += 1;
  };
  const sources: SourcesDeps = {
    sources: sourcesRepo,
    clock: deps.clock,
    ids: deps.ids,
    routesChanged,
  };
  const bridges: BridgesDeps = {
    bridges: bridgesRepo,
    sources: sourcesRepo,
    tx: (fn) => deps.db.tx(() => fn()),
    clock: deps.clock,
    ids: deps.ids,
    sealer: createSealer(deps.secretKey, "destination-signing-secret"),
    checks: { urlProblem: (url) => deps.outbound.urlProblem(url) },
    routesChanged,
  };
  return {
    sources,
    bridges,
    guard: ports.guard,
    publicBaseUrl: deps.publicBaseUrl,
    /** Grows on every change of sources, bridges or destinations: cached routes go stale. */
    routesVersion: () => routesVersion,
  };
}

export type RoutingParts = ReturnType<typeof buildRoutingParts>;

/**
 * Builds the routing room: sources, bridges and their destinations (decisions.md §8). Ingested
 * webhooks become events whose deliveries go through the delivery room's outbox.
 */
export function createRoutingRoom(deps: RoutingRoomDeps, ports: RoutingRoomPorts): Room {
  const parts = buildRoutingParts(deps, ports);
  return {
    routes: new Elysia({ name: "weir-routing" })
      .use(sourcesRoutes(parts))
      .use(bridgesRoutes(parts)),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {},
  };
}
