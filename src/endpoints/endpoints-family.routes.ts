import { Elysia, t } from "elysia";
import { authGuard, requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import type { AuthService } from "../auth/auth.service.ts";
import { presentRequest } from "../capture/requests.present.ts";
import { emptyEndpoint, getRequest, listRequests } from "../capture/requests.service.ts";
import { genericPage, parsePageRequest } from "../db/db.pagination.ts";
import { presentForward } from "../delivery/forwards.present.ts";
import { listForwards, replayRequest } from "../delivery/forwards.service.ts";
import { presentEndpoint } from "./endpoints.present.ts";
import type { EndpointsRoom } from "./endpoints.room.ts";
import {
  CapturedRequestSchema,
  endpointRequestBody,
  errorResponses,
  FamilyEndpointSchema,
  ForwardSchema,
  genericPageOf,
  PageQuery,
} from "./endpoints.schemas.ts";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
} from "./endpoints.service.ts";

const tags = ["endpoints"];
const ref = (principal: Principal, endpointId: string) => ({
  organizationId: principal.organizationId,
  endpointId,
});
const dataOf = <T extends Parameters<typeof t.Object>[0]>(fields: T) =>
  t.Object({ data: t.Object(fields) });

/**
 * The `endpoints` family (interface.md): `{data}` envelopes, generic pagination, PUT to update,
 * plus emptying an endpoint, forward records and replay (decisions.md §6).
 */
export function endpointsFamily(room: EndpointsRoom, auth: AuthService) {
  return (
    new Elysia({ prefix: "/api/v1/endpoints" })
      .use(authGuard(auth))
      // URLs handed out follow the address this caller reached Weir by (or base_url).
      .derive(({ request, server }) => {
        const base = room.publicBaseUrl(request, server);
        return {
          show: (view: Parameters<typeof presentEndpoint>[0]) => presentEndpoint(view, base),
        };
      })
      .get(
        "/",
        ({ principal, show }) => ({
          data: listEndpoints(principal.organizationId, room.endpoints).map(show),
        }),
        {
          response: { 200: t.Object({ data: t.Array(FamilyEndpointSchema) }), ...errorResponses },
          detail: { tags, summary: "List the organization's endpoints, newest first" },
        },
      )
      .post(
        "/",
        ({ principal, show, body, set }) => {
          requirePermission(principal, "write");
          const tenant = { organizationId: principal.organizationId, plan: principal.plan };
          set.status = 201;
          return { data: show(createEndpoint({ tenant, body }, room.endpoints)) };
        },
        {
          response: { 201: dataOf(FamilyEndpointSchema.properties), ...errorResponses },
          detail: {
            tags,
            summary: "Create an endpoint (admin)",
            requestBody: endpointRequestBody(
              "`{debug_endpoint: {name, slug?, response?, forward_url?}}`",
            ),
          },
        },
      )
      .get(
        "/:id",
        ({ principal, show, params }) => ({
          data: show(getEndpoint(ref(principal, params.id), room.endpoints)),
        }),
        {
          response: { 200: dataOf(FamilyEndpointSchema.properties), ...errorResponses },
          detail: { tags, summary: "Get an endpoint" },
        },
      )
      .put(
        "/:id",
        ({ principal, show, params, body }) => {
          requirePermission(principal, "write");
          return {
            data: show(updateEndpoint({ ...ref(principal, params.id), body }, room.endpoints)),
          };
        },
        {
          response: { 200: dataOf(FamilyEndpointSchema.properties), ...errorResponses },
          detail: {
            tags,
            summary:
              "Rename (and optionally pause/resume or change response and forward target; admin)",
            requestBody: endpointRequestBody(
              "`{debug_endpoint: {name}}`; status, response and forward_url are accepted as in PATCH of the other family",
            ),
          },
        },
      )
      .delete(
        "/:id",
        ({ principal, params, set }) => {
          requirePermission(principal, "write");
          deleteEndpoint(ref(principal, params.id), room.endpoints);
          set.status = 204;
        },
        {
          response: { 204: t.Void(), ...errorResponses },
          detail: { tags, summary: "Delete an endpoint and all its requests (admin)" },
        },
      )
      .get(
        "/:id/requests",
        ({ principal, params, query }) => {
          const page = parsePageRequest(query);
          const result = listRequests({ ...ref(principal, params.id), page }, room.requests);
          return genericPage(result.items.map(presentRequest), result.info);
        },
        {
          query: PageQuery,
          response: { 200: genericPageOf(CapturedRequestSchema), ...errorResponses },
          detail: { tags, summary: "List captured requests, newest first" },
        },
      )
      .delete(
        "/:id/requests",
        ({ principal, params, set }) => {
          requirePermission(principal, "write");
          emptyEndpoint(ref(principal, params.id), room.requests);
          set.status = 204;
        },
        {
          response: { 204: t.Void(), ...errorResponses },
          detail: { tags, summary: "Delete every captured request of the endpoint (admin)" },
        },
      )
      .get(
        "/:id/requests/:request_id",
        ({ principal, params }) => {
          const input = { ...ref(principal, params.id), requestId: params.request_id };
          return { data: presentRequest(getRequest(input, room.requests)) };
        },
        {
          response: { 200: dataOf(CapturedRequestSchema.properties), ...errorResponses },
          detail: { tags, summary: "Get one captured request" },
        },
      )
      .get(
        "/:id/requests/:request_id/forwards",
        ({ principal, params, query }) => {
          const input = { ...ref(principal, params.id), requestId: params.request_id };
          const result = listForwards({ ...input, page: parsePageRequest(query) }, room.forwards);
          return genericPage(result.items.map(presentForward), result.info);
        },
        {
          query: PageQuery,
          response: { 200: genericPageOf(ForwardSchema), ...errorResponses },
          detail: { tags, summary: "List the forward and replay tries of a request, newest first" },
        },
      )
      .post(
        "/:id/requests/:request_id/replay",
        async ({ principal, params, body, set }) => {
          requirePermission(principal, "write");
          const input = { ...ref(principal, params.id), requestId: params.request_id };
          const url = (body as { url?: unknown } | null | undefined)?.url;
          const record = await replayRequest({ ...input, url }, room.forwards);
          set.status = 201;
          return { data: presentForward(record) };
        },
        {
          response: { 201: dataOf(ForwardSchema.properties), ...errorResponses },
          detail: {
            tags,
            summary: "Re-send a stored request now to `url` or the forward_url (admin)",
            requestBody: {
              required: false,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: { url: { type: "string", format: "uri" } },
                  },
                },
              },
            },
          },
        },
      )
  );
}
