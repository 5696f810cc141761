import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import type { ClientIpResolver } from "../http/http.client-ip.ts";
import type { Room } from "../room.ts";
import { isoAt } from "../shared/clock.ts";
import { createSealer } from "../shared/sealed.ts";
import { createKeyedLimiter, perMinute } from "../shared/token-bucket.ts";
import { VERIFICATION_SEAL_PURPOSE } from "../verification/verification.settings.ts";
import { anonymousEndpointRoutes } from "./anonymous.routes.ts";
import {
  type AnonymousAccess,
  type AnonymousDeps,
  requireAnonymousEndpoint,
} from "./anonymous.service.ts";
import type { DrainingEndpoint, Endpoint } from "./endpoints.model.ts";
import { createEndpointsRepo } from "./endpoints.repo.ts";
import { endpointsRoutes } from "./endpoints.routes.ts";
import { type EndpointsDeps, requireEndpoint } from "./endpoints.service.ts";

/** Anonymous endpoint creation per client address: 10 at once, then one a minute. */
const ANONYMOUS_CREATION = perMinute(10, 1);

export type EndpointsRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "bus" | "config" | "publicBaseUrl" | "outbound" | "secretKey"
>;

export interface EndpointsRoomPorts {
  guard: AuthPorts["guard"];
  resolveClientIp: ClientIpResolver;
}

/** What the endpoints room lends: the one isolation check of an endpoint, and lookups by id. */
export interface EndpointsPorts {
  /** The organization's endpoint, or a 404 `AppError`. */
  requireEndpoint(organizationId: string, endpointId: string): Endpoint;
  /** The organization's endpoint, or null. */
  findEndpoint(organizationId: string, endpointId: string): Endpoint | null;
  /** Any endpoint by id, anonymous ones included: for work the app does on its own (retries). */
  findEndpointById(endpointId: string): Endpoint | null;
  /** The anonymous endpoint this token opens, or a 404 `AppError`. */
  requireAnonymousEndpoint(access: AnonymousAccess): Endpoint;
  /** Ids of anonymous endpoints expired at `nowIso` (the retention sweep removes them). */
  listExpiredAnonymous(nowIso: string, limit: number): string[];
  /** Deletes an anonymous endpoint at once; its requests are drained afterwards. */
  deleteAnonymous(endpointId: string): boolean;
  /**
   * Empties an endpoint for every reader at once (its counter is 0, its stored requests hidden);
   * they are drained afterwards. False when the endpoint is gone.
   */
  clearRequests(endpointId: string): boolean;
  /** Endpoints with hidden requests still to drain (deleted or emptied), at most `limit`. */
  listDraining(limit: number): DrainingEndpoint[];
  /** In the transaction that drained an endpoint's last hidden request: ends its drain. */
  finishDrain(tx: TxHandle, endpoint: DrainingEndpoint): void;
}

/**
 * Builds the endpoints room: both endpoint families (one resource, decisions.md §12) and
 * anonymous endpoints. Everything of an endpoint's requests belongs to capture and delivery,
 * which reach endpoints through the ports lent here.
 */
export function createEndpointsRoom(
  deps: EndpointsRoomDeps,
  ports: EndpointsRoomPorts,
): Room<EndpointsPorts> {
  const parts = buildEndpointsParts(deps, ports);
  const { repo } = parts.endpoints;
  return {
    routes: new Elysia({ name: "weir-endpoints" })
      .use(endpointsRoutes(parts))
      .use(anonymousEndpointRoutes(parts)),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {
      requireEndpoint: (organizationId, endpointId) =>
        requireEndpoint(organizationId, endpointId, { repo }),
      findEndpoint: (organizationId, endpointId) =>
        repo.findInOrganization(endpointId, organizationId),
      findEndpointById: (endpointId) => repo.findById(endpointId),
      requireAnonymousEndpoint: (access) => requireAnonymousEndpoint(access, parts.anonymous),
      listExpiredAnonymous: (nowIso, limit) => repo.listExpiredAnonymous(nowIso, limit),
      deleteAnonymous: (endpointId) => repo.deleteAnonymous(endpointId, isoAt(deps.clock.now())),
      clearRequests: (endpointId) =>
        repo.clearRequests(endpointId, deps.ids.uuid(), isoAt(deps.clock.now())),
      listDraining: (limit) => repo.listDraining(limit),
      finishDrain: (_tx, endpoint) => repo.finishDrain(endpoint),
    },
  };
}

/** The endpoints room's use-case deps, as its routes take them. */
function buildEndpointsParts(deps: EndpointsRoomDeps, ports: EndpointsRoomPorts) {
  const repo = createEndpointsRepo(deps.db);
  const endpoints: EndpointsDeps = {
    repo,
    checkTarget: (url) => deps.outbound.urlProblem(url),
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    bus: deps.bus,
    sealer: createSealer(deps.secretKey, VERIFICATION_SEAL_PURPOSE),
  };
  const anonymous: AnonymousDeps = { repo, clock: deps.clock, ids: deps.ids, config: deps.config };
  return {
    endpoints,
    anonymous,
    guard: ports.guard,
    anonymousLimiter: createKeyedLimiter(deps.clock, ANONYMOUS_CREATION),
    resolveClientIp: ports.resolveClientIp,
    /** The public base URL for a request: base_url, or the request's own host and scheme. */
    publicBaseUrl: deps.publicBaseUrl,
  };
}

export type EndpointsParts = ReturnType<typeof buildEndpointsParts>;
