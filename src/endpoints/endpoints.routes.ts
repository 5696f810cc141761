import { Elysia } from "elysia";
import type { AuthService } from "../auth/auth.service.ts";
import type { AppDeps } from "../deps.ts";
import { anonymousEndpointRoutes } from "./anonymous.routes.ts";
import { debugEndpointsFamily } from "./debug-endpoints.routes.ts";
import { createEndpointsRoom } from "./endpoints.room.ts";
import { endpointsFamily } from "./endpoints-family.routes.ts";

/**
 * The endpoints room's HTTP surface: both endpoint families (one resource, decisions.md §12),
 * request reading, forwards and replay, and anonymous endpoints. Building it also starts the
 * forwarder that re-sends captures to forward URLs.
 */
export function endpointsRoutes(deps: AppDeps, options: { auth: AuthService }) {
  const room = createEndpointsRoom(deps);
  return new Elysia()
    .use(debugEndpointsFamily(room, options.auth))
    .use(endpointsFamily(room, options.auth))
    .use(anonymousEndpointRoutes(room));
}
