import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { genericPage, type PageInfo, parsePageRequest } from "../db/db.pagination.ts";
import { CAPTURE_SAFETY_HEADERS } from "../endpoints/endpoints.model.ts";
import type { EndpointsPorts } from "../endpoints/endpoints.room.ts";
import { errorResponses, genericPageOf, RequestListQuery } from "../endpoints/endpoints.schemas.ts";
import { ErrorBody } from "../http/http.openapi.ts";
import { parseRequestFilter } from "./request-filter.model.ts";
import { type ListedRequest, presentListedRequest, presentRequest } from "./requests.present.ts";
import { CapturedRequestSchema } from "./requests.schemas.ts";
import { emptyEndpoint, getRequest, listRequests, type RequestsDeps } from "./requests.service.ts";

/** What reading stored requests borrows: the guard, and the endpoint checks of endpoints. */
export interface RequestsRoutesPorts {
  guard: AuthPorts["guard"];
  requireEndpoint: EndpointsPorts["requireEndpoint"];
  requireAnonymousEndpoint: EndpointsPorts["requireAnonymousEndpoint"];
  clearRequests: EndpointsPorts["clearRequests"];
  /** Starts draining what an empty hid. */
  wakeDrain(): void;
}

type Presented = ListedRequest;

/** How one API family wraps the same request pages and requests (decisions.md §12). */
interface RequestsEnvelope<Page, One> {
  page(items: Presented[], info: PageInfo): Page;
  one(request: Presented): One;
}

const debugEnvelope = {
  page: (items: Presented[], info: PageInfo) => ({
    debug_requests: items,
    pagination: {
      page: info.page,
      page_size: info.pageSize,
      total_count: info.total,
      total_pages: info.totalPages,
    },
  }),
  one: (request: Presented) => request,
};

const dataEnvelope = {
  page: (items: Presented[], info: PageInfo) => genericPage(items, info),
  one: (request: Presented) => ({ data: request }),
};

const DebugRequestPage = t.Object({
  debug_requests: t.Array(CapturedRequestSchema),
  pagination: t.Object({
    page: t.Integer(),
    page_size: t.Integer(),
    total_count: t.Integer(),
    total_pages: t.Integer(),
  }),
});

/** The handlers every family shares, given the endpoint id the caller was allowed to open. */
function requestHandlers<Page, One>(deps: RequestsDeps, envelope: RequestsEnvelope<Page, One>) {
  return {
    list: async (endpointId: string, query: Record<string, unknown>): Promise<Page> => {
      const page = parsePageRequest(query);
      const filter = parseRequestFilter(query);
      const result = await listRequests({ endpointId, page, filter }, deps);
      return envelope.page(result.items.map(presentListedRequest), result.info);
    },
    get: async (endpointId: string, requestId: string): Promise<One> =>
      envelope.one(presentRequest(await getRequest({ endpointId, requestId }, deps))),
  };
}

/**
 * The stored bytes of one request, as they came, with their content type (decisions.md §14).
 * Served from the UI's origin, so never as something the browser runs there: an attachment,
 * unsniffed, and sandboxed should it be opened anyway.
 */
async function rawBody(
  deps: RequestsDeps,
  endpointId: string,
  requestId: string,
): Promise<Response> {
  const request = await getRequest({ endpointId, requestId }, deps);
  return new Response(request.body, {
    headers: {
      "content-type": request.contentType ?? "application/octet-stream",
      "content-disposition": `attachment; filename="${request.id}.body"`,
      ...CAPTURE_SAFETY_HEADERS,
    },
  });
}

const rawBodyDoc = (tags: string[], who: string) => ({
  tags,
  summary: `Download one request's body: the stored bytes with their content type${who}`,
  responses: { 200: { description: "The body as captured (an attachment)." } },
});

const TOKEN_HEADER = "x-anonymous-token";
const tokenHeaders = t.Object({
  [TOKEN_HEADER]: t.Optional(t.String({ description: "The token returned at creation." })),
});

/**
 * Reading (and emptying) an endpoint's stored requests, in the three API families: the
 * `debug-endpoints` family, the `endpoints` family and anonymous endpoints (X-Anonymous-Token).
 * Each family only decides who may open the endpoint and how the answer is wrapped.
 */
export function requestsRoutes(deps: RequestsDeps, ports: RequestsRoutesPorts) {
  const debug = requestHandlers(deps, debugEnvelope);
  const data = requestHandlers(deps, dataEnvelope);
  // The endpoint a caller may open, as a promise the handlers await (the endpoints room's
  // checks may read its store).
  const open = async (principal: Principal, endpointId: string) =>
    (await ports.requireEndpoint(principal.organizationId, endpointId)).id;
  const openAnonymous = async (id: string, headers: Record<string, string | undefined>) =>
    (await ports.requireAnonymousEndpoint({ id, token: headers[TOKEN_HEADER] ?? "" })).id;
  const debugTags = ["debug-endpoints"];
  const tags = ["endpoints"];
  const anonymousTags = ["anonymous-endpoints"];
  return new Elysia({ name: "weir-requests" })
    .use(
      new Elysia({ prefix: "/api/v1/debug-endpoints" })
        .use(ports.guard())
        .get(
          "/:endpoint_id/requests",
          async ({ principal, params, query }) =>
            debug.list(await open(principal, params.endpoint_id), query),
          {
            query: RequestListQuery,
            response: { 200: DebugRequestPage, ...errorResponses },
            detail: { tags: debugTags, summary: "List captured requests, newest first" },
          },
        )
        .get(
          "/:endpoint_id/requests/:request_id",
          async ({ principal, params }) =>
            debug.get(await open(principal, params.endpoint_id), params.request_id),
          {
            response: { 200: CapturedRequestSchema, ...errorResponses },
            detail: { tags: debugTags, summary: "Get one captured request" },
          },
        )
        .get(
          "/:endpoint_id/requests/:request_id/body",
          async ({ principal, params }) =>
            rawBody(deps, await open(principal, params.endpoint_id), params.request_id),
          { detail: rawBodyDoc(debugTags, "") },
        ),
    )
    .use(
      new Elysia({ prefix: "/api/v1/endpoints" })
        .use(ports.guard())
        .get(
          "/:id/requests",
          async ({ principal, params, query }) =>
            data.list(await open(principal, params.id), query),
          {
            query: RequestListQuery,
            response: { 200: genericPageOf(CapturedRequestSchema), ...errorResponses },
            detail: { tags, summary: "List captured requests, newest first" },
          },
        )
        .delete(
          "/:id/requests",
          async ({ principal, params, set }) => {
            requirePermission(principal, "write");
            await emptyEndpoint({ endpointId: await open(principal, params.id) }, ports);
            set.status = 204;
          },
          {
            response: { 204: t.Void(), ...errorResponses },
            detail: { tags, summary: "Delete every captured request of the endpoint (admin)" },
          },
        )
        .get(
          "/:id/requests/:request_id",
          async ({ principal, params }) =>
            data.get(await open(principal, params.id), params.request_id),
          {
            response: { 200: t.Object({ data: CapturedRequestSchema }), ...errorResponses },
            detail: { tags, summary: "Get one captured request" },
          },
        )
        .get(
          "/:id/requests/:request_id/body",
          async ({ principal, params }) =>
            rawBody(deps, await open(principal, params.id), params.request_id),
          { detail: rawBodyDoc(tags, "") },
        ),
    )
    .use(
      new Elysia({ prefix: "/api/v1/anonymous-endpoints" })
        .get(
          "/:id/requests",
          async ({ params, headers, query }) =>
            data.list(await openAnonymous(params.id, headers), query),
          {
            headers: tokenHeaders,
            query: RequestListQuery,
            response: {
              200: genericPageOf(CapturedRequestSchema),
              404: ErrorBody,
              422: errorResponses[422],
            },
            detail: {
              tags: anonymousTags,
              summary: "List an anonymous endpoint's requests (X-Anonymous-Token)",
              security: [{ anonymousToken: [] }],
            },
          },
        )
        .get(
          "/:id/requests/:request_id",
          async ({ params, headers }) =>
            data.get(await openAnonymous(params.id, headers), params.request_id),
          {
            headers: tokenHeaders,
            response: { 200: t.Object({ data: CapturedRequestSchema }), 404: ErrorBody },
            detail: {
              tags: anonymousTags,
              summary: "Get one request of an anonymous endpoint (X-Anonymous-Token)",
              security: [{ anonymousToken: [] }],
            },
          },
        )
        .get(
          "/:id/requests/:request_id/body",
          async ({ params, headers }) =>
            rawBody(deps, await openAnonymous(params.id, headers), params.request_id),
          {
            headers: tokenHeaders,
            detail: {
              ...rawBodyDoc(anonymousTags, " (X-Anonymous-Token)"),
              security: [{ anonymousToken: [] }],
            },
          },
        ),
    );
}
