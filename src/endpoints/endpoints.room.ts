import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
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
import { createEndpointsPostgresStore, finishDrainOnPostgres } from "./endpoints.postgres.ts";
import { endpointsRoutes } from "./endpoints.routes.ts";
import { type EndpointsDeps, requireEndpoint } from "./endpoints.service.ts";
import { createEndpointsSqliteStore } from "./endpoints.sqlite.ts";
import type { EndpointsStore } from "./endpoints.store.ts";

/** Anonymous endpoint creation per client address: 10 at once, then one a minute. */
const ANONYMOUS_CREATION = perMinute(10, 1);

export type EndpointsRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "bus" | "config" | "publicBaseUrl" | "outbound" | "secretKey"
> &
  RoomStorage;

export interface EndpointsRoomPorts {
  guard: AuthPorts["guard"];
  resolveClientIp: ClientIpResolver;
}

/** What the endpoints room lends: the one isolation check of an endpoint, and lookups by id. */
export interface EndpointsPorts {
  /** The organization's endpoint, or a 404 `AppError`. */
  requireEndpoint(organizationId: string, endpointId: string): Promise<Endpoint>;
  /** The organization's endpoint, or null. */
  findEndpoint(organizationId: string, endpointId: string): Promise<Endpoint | null>;
  /** Any endpoint by id, anonymous ones included: for work the app does on its own (retries). */
  findEndpointById(endpointId: string): Promise<Endpoint | null>;
  /** The anonymous endpoint this token opens, or a 404 `AppError`. */
  requireAnonymousEndpoint(access: AnonymousAccess): Promise<Endpoint>;
  /** Ids of anonymous endpoints expired at `nowIso` (the retention sweep removes them). */
  listExpiredAnonymous(nowIso: string, limit: number): Promise<string[]>;
  /** Deletes an anonymous endpoint at once; its requests are drained afterwards. */
  deleteAnonymous(endpointId: string): Promise<boolean>;
  /**
   * Empties an endpoint for every reader at once (its counter is 0, its stored requests hidden);
   * they are drained afterwards. False when the endpoint is gone.
   */
  clearRequests(endpointId: string): Promise<boolean>;
  /** Endpoints with hidden requests still to drain (deleted or emptied), at most `limit`. */
  listDraining(limit: number): Promise<DrainingEndpoint[]>;
  /**
   * On SQLite, in the transaction that drained an endpoint's last hidden request: ends its
   * drain. Synchronous, because that transaction is.
   */
  finishDrain(tx: TxHandle, endpoint: DrainingEndpoint): void;
  /** The same on PostgreSQL, inside the drain's `sql.begin` transaction `tx`. */
  finishDrainOnPostgres(tx: PostgresDb["sql"], endpoint: DrainingEndpoint): Promise<void>;
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
  const storage = endpointsStorage(deps);
  const parts = buildEndpointsParts(deps, ports, storage.store);
  const { store } = storage;
  return {
    routes: new Elysia({ name: "weir-endpoints" })
      .use(endpointsRoutes(parts))
      .use(anonymousEndpointRoutes(parts)),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {
      requireEndpoint: (organizationId, endpointId) =>
        requireEndpoint(organizationId, endpointId, { store }),
      findEndpoint: (organizationId, endpointId) =>
        store.findInOrganization(endpointId, organizationId),
      findEndpointById: (endpointId) => store.findById(endpointId),
      requireAnonymousEndpoint: (access) => requireAnonymousEndpoint(access, parts.anonymous),
      listExpiredAnonymous: (nowIso, limit) => store.listExpiredAnonymous(nowIso, limit),
      deleteAnonymous: (endpointId) => store.deleteAnonymous(endpointId, isoAt(deps.clock.now())),
      clearRequests: (endpointId) =>
        store.clearRequests(endpointId, deps.ids.uuid(), isoAt(deps.clock.now())),
      listDraining: (limit) => store.listDraining(limit),
      finishDrain: storage.finishDrain,
      finishDrainOnPostgres: storage.finishDrainOnPostgres,
    },
  };
}

/** The store over the database the room was given, and the drain's end in that dialect. */
function endpointsStorage(deps: EndpointsRoomDeps): {
  store: EndpointsStore;
  finishDrain: EndpointsPorts["finishDrain"];
  finishDrainOnPostgres: EndpointsPorts["finishDrainOnPostgres"];
} {
  if (deps.postgres) {
    return {
      store: createEndpointsPostgresStore(deps.postgres),
      finishDrain: () => {
        throw new Error("finishDrain takes a SQLite transaction: this room keeps PostgreSQL");
      },
      finishDrainOnPostgres: finishDrainOnPostgres,
    };
  }
  const { store, repo } = createEndpointsSqliteStore(sqliteOf(deps));
  return {
    store,
    finishDrain: (_tx, endpoint) => repo.finishDrain(endpoint),
    finishDrainOnPostgres: () =>
      Promise.reject(new Error("finishDrainOnPostgres on a room that keeps SQLite")),
  };
}

/** The endpoints room's use-case deps, as its routes take them. */
function buildEndpointsParts(
  deps: EndpointsRoomDeps,
  ports: EndpointsRoomPorts,
  store: EndpointsStore,
) {
  const endpoints: EndpointsDeps = {
    store,
    checkTarget: (url) => deps.outbound.urlProblem(url),
    clock: deps.clock,
    ids: deps.ids,
    plans: deps.config.plans,
    bus: deps.bus,
    sealer: createSealer(deps.secretKey, VERIFICATION_SEAL_PURPOSE),
  };
  const anonymous: AnonymousDeps = { store, clock: deps.clock, ids: deps.ids, config: deps.config };
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
