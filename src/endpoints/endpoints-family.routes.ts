import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import { presentEndpoint } from "./endpoints.present.ts";
import type { EndpointsParts } from "./endpoints.room.ts";
import { endpointRequestBody, errorResponses, FamilyEndpointSchema } from "./endpoints.schemas.ts";
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
export function endpointsFamily(room: EndpointsParts) {
  return (
    new Elysia({ prefix: "/api/v1/endpoints" })
      .use(room.guard())
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
  );
}
