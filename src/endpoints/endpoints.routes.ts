import { Elysia, type TSchema, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import { type EndpointEnvelope, endpointEnvelopes } from "./endpoints.present.ts";
import type { EndpointsParts } from "./endpoints.room.ts";
import {
  DebugEndpointSchema,
  endpointRequestBody,
  errorResponses,
  FamilyEndpointSchema,
} from "./endpoints.schemas.ts";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
} from "./endpoints.service.ts";

/**
 * One API family of the endpoint resource (decisions.md §12): where it lives, how it wraps an
 * endpoint and a list, and what its OpenAPI entries say. Both families share every handler.
 */
interface EndpointFamily {
  prefix: string;
  tags: string[];
  /** The path parameter naming the endpoint. */
  idParam: string;
  /** The update verb: PATCH in the `debug-endpoints` family, PUT in the `endpoints` family. */
  update: "PATCH" | "PUT";
  envelope: EndpointEnvelope;
  schemas: { one: TSchema; list: TSchema };
  docs: { create: string; createBody: string; update: string; updateBody: string };
}

const CREATE_BODY = "`{debug_endpoint: {name, slug?, response?, forward_url?, verification?}}`";

const FAMILIES: EndpointFamily[] = [
  {
    prefix: "/api/v1/debug-endpoints",
    tags: ["debug-endpoints"],
    idParam: "endpoint_id",
    update: "PATCH",
    envelope: endpointEnvelopes.debug,
    schemas: {
      one: DebugEndpointSchema,
      list: t.Object({ debug_endpoints: t.Array(DebugEndpointSchema) }),
    },
    docs: {
      create: "Create a debug endpoint (admin)",
      createBody: CREATE_BODY,
      update: "Rename, pause/resume, or change the custom response or forward target (admin)",
      updateBody:
        "`{debug_endpoint: {name?, status?, response?, forward_url?, verification?}}`; null clears response, forward_url or verification",
    },
  },
  {
    prefix: "/api/v1/endpoints",
    tags: ["endpoints"],
    idParam: "id",
    update: "PUT",
    envelope: endpointEnvelopes.data,
    schemas: {
      one: t.Object({ data: FamilyEndpointSchema }),
      list: t.Object({ data: t.Array(FamilyEndpointSchema) }),
    },
    docs: {
      create: "Create an endpoint (admin)",
      createBody: CREATE_BODY,
      update: "Rename (and optionally pause/resume or change response and forward target; admin)",
      updateBody:
        "`{debug_endpoint: {name}}`; status, response, forward_url and verification are accepted as in PATCH of the other family",
    },
  },
];

/**
 * The handlers both families share. `base` is the public base URL of the request: URLs handed
 * out follow the address the caller reached Weir by (or base_url).
 */
function endpointHandlers(room: EndpointsParts, family: EndpointFamily) {
  const { envelope } = family;
  const ref = (principal: Principal, endpointId: string) => ({
    organizationId: principal.organizationId,
    endpointId,
  });
  return {
    async create(principal: Principal, base: string, body: unknown) {
      requirePermission(principal, "write");
      const tenant = { organizationId: principal.organizationId, plan: principal.plan };
      return envelope.one(await createEndpoint({ tenant, body }, room.endpoints), base);
    },
    async list(principal: Principal, base: string) {
      const views = await listEndpoints(principal.organizationId, room.endpoints);
      return envelope.list(views, base);
    },
    get: async (principal: Principal, base: string, endpointId: string) =>
      envelope.one(await getEndpoint(ref(principal, endpointId), room.endpoints), base),
    async update(principal: Principal, base: string, endpointId: string, body: unknown) {
      requirePermission(principal, "write");
      const view = await updateEndpoint({ ...ref(principal, endpointId), body }, room.endpoints);
      return envelope.one(view, base);
    },
    async remove(principal: Principal, endpointId: string) {
      requirePermission(principal, "write");
      await deleteEndpoint(ref(principal, endpointId), room.endpoints);
    },
  };
}

/** One family's routes: the same handlers, the family's paths, envelopes and documentation. */
function endpointFamilyRoutes(room: EndpointsParts, family: EndpointFamily) {
  const handle = endpointHandlers(room, family);
  const { tags, docs, schemas } = family;
  const one = `/:${family.idParam}`;
  const idOf = (params: Record<string, string>) => params[family.idParam] as string;
  const routes = new Elysia({ prefix: family.prefix })
    .use(room.guard())
    .derive(({ request, server }) => ({ base: room.publicBaseUrl(request, server) }));
  routes.get("/", ({ principal, base }) => handle.list(principal, base), {
    response: { 200: schemas.list, ...errorResponses },
    detail: { tags, summary: "List the organization's endpoints, newest first" },
  });
  routes.post(
    "/",
    async ({ principal, base, body, set }) => {
      const created = await handle.create(principal, base, body);
      set.status = 201;
      return created;
    },
    {
      response: { 201: schemas.one, ...errorResponses },
      detail: { tags, summary: docs.create, requestBody: endpointRequestBody(docs.createBody) },
    },
  );
  routes.get(one, ({ principal, base, params }) => handle.get(principal, base, idOf(params)), {
    response: { 200: schemas.one, ...errorResponses },
    detail: { tags, summary: "Get an endpoint" },
  });
  routes.route(
    family.update,
    one,
    ({ principal, base, params, body }) => handle.update(principal, base, idOf(params), body),
    {
      response: { 200: schemas.one, ...errorResponses },
      detail: { tags, summary: docs.update, requestBody: endpointRequestBody(docs.updateBody) },
    },
  );
  routes.delete(
    one,
    async ({ principal, params, set }) => {
      await handle.remove(principal, idOf(params));
      set.status = 204;
    },
    {
      response: { 204: t.Void(), ...errorResponses },
      detail: { tags, summary: "Delete an endpoint and all its requests (admin)" },
    },
  );
  return routes;
}

/**
 * The endpoint resource in both API families (interface.md): `debug-endpoints` (bare endpoints,
 * `{debug_endpoints}` lists, PATCH) and `endpoints` (`{data}` envelopes, PUT). Every route needs
 * credentials.
 */
export function endpointsRoutes(room: EndpointsParts) {
  const routes = new Elysia({ name: "weir-endpoint-families" });
  for (const family of FAMILIES) routes.use(endpointFamilyRoutes(room, family));
  return routes;
}
