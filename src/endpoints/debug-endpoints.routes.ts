import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import { presentDebugEndpoint } from "./endpoints.present.ts";
import type { EndpointsParts } from "./endpoints.room.ts";
import { DebugEndpointSchema, endpointRequestBody, errorResponses } from "./endpoints.schemas.ts";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
} from "./endpoints.service.ts";

const tags = ["debug-endpoints"];
const tenantOf = (principal: Principal) => ({
  organizationId: principal.organizationId,
  plan: principal.plan,
});

/**
 * The `debug-endpoints` family (interface.md): bare endpoints, `{debug_endpoints}` lists and
 * `{debug_requests, pagination}` pages. Every route needs credentials.
 */
export function debugEndpointsFamily(room: EndpointsParts) {
  return (
    new Elysia({ prefix: "/api/v1/debug-endpoints" })
      .use(room.guard())
      // URLs handed out follow the address this caller reached Weir by (or base_url).
      .derive(({ request, server }) => {
        const base = room.publicBaseUrl(request, server);
        return {
          show: (view: Parameters<typeof presentDebugEndpoint>[0]) =>
            presentDebugEndpoint(view, base),
        };
      })
      .post(
        "/",
        ({ principal, show, body, set }) => {
          requirePermission(principal, "write");
          set.status = 201;
          return show(createEndpoint({ tenant: tenantOf(principal), body }, room.endpoints));
        },
        {
          response: { 201: DebugEndpointSchema, ...errorResponses },
          detail: {
            tags,
            summary: "Create a debug endpoint (admin)",
            requestBody: endpointRequestBody(
              "`{debug_endpoint: {name, slug?, response?, forward_url?}}`",
            ),
          },
        },
      )
      .get(
        "/",
        ({ principal, show }) => ({
          debug_endpoints: listEndpoints(principal.organizationId, room.endpoints).map(show),
        }),
        {
          response: {
            200: t.Object({ debug_endpoints: t.Array(DebugEndpointSchema) }),
            ...errorResponses,
          },
          detail: { tags, summary: "List the organization's endpoints, newest first" },
        },
      )
      .get(
        "/:endpoint_id",
        ({ principal, show, params }) =>
          show(
            getEndpoint(
              { organizationId: principal.organizationId, endpointId: params.endpoint_id },
              room.endpoints,
            ),
          ),
        {
          response: { 200: DebugEndpointSchema, ...errorResponses },
          detail: { tags, summary: "Get an endpoint" },
        },
      )
      .patch(
        "/:endpoint_id",
        ({ principal, show, params, body }) => {
          requirePermission(principal, "write");
          const ref = { organizationId: principal.organizationId, endpointId: params.endpoint_id };
          return show(updateEndpoint({ ...ref, body }, room.endpoints));
        },
        {
          response: { 200: DebugEndpointSchema, ...errorResponses },
          detail: {
            tags,
            summary:
              "Rename, pause/resume, or change the custom response or forward target (admin)",
            requestBody: endpointRequestBody(
              "`{debug_endpoint: {name?, status?, response?, forward_url?}}`; null clears response or forward_url",
            ),
          },
        },
      )
      .delete(
        "/:endpoint_id",
        ({ principal, params, set }) => {
          requirePermission(principal, "write");
          const ref = { organizationId: principal.organizationId, endpointId: params.endpoint_id };
          deleteEndpoint(ref, room.endpoints);
          set.status = 204;
        },
        {
          response: { 204: t.Void(), ...errorResponses },
          detail: { tags, summary: "Delete an endpoint and all its requests (admin)" },
        },
      )
  );
}
