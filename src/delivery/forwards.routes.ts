import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { genericPage, parsePageRequest } from "../db/db.pagination.ts";
import { errorResponses, genericPageOf, PageQuery } from "../endpoints/endpoints.schemas.ts";
import { presentForward } from "./forwards.present.ts";
import { ForwardSchema } from "./forwards.schemas.ts";
import { type ForwardsDeps, listForwards, replayRequest } from "./forwards.service.ts";

const tags = ["endpoints"];

/** Forward records and replay of a stored request, in the `endpoints` family (decisions.md §6). */
export function forwardsRoutes(deps: ForwardsDeps, ports: { guard: AuthPorts["guard"] }) {
  return new Elysia({ prefix: "/api/v1/endpoints" })
    .use(ports.guard())
    .get(
      "/:id/requests/:request_id/forwards",
      async ({ principal, params, query }) => {
        const input = {
          organizationId: principal.organizationId,
          endpointId: params.id,
          requestId: params.request_id,
          page: parsePageRequest(query),
        };
        const result = await listForwards(input, deps);
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
        const url = (body as { url?: unknown } | null | undefined)?.url;
        const input = {
          organizationId: principal.organizationId,
          endpointId: params.id,
          requestId: params.request_id,
          url,
        };
        const record = await replayRequest(input, deps);
        set.status = 201;
        return { data: presentForward(record) };
      },
      {
        response: { 201: t.Object({ data: ForwardSchema }), ...errorResponses },
        detail: {
          tags,
          summary: "Re-send a stored request now to `url` or the forward_url (admin)",
          requestBody: {
            required: false,
            content: {
              "application/json": {
                schema: { type: "object", properties: { url: { type: "string", format: "uri" } } },
              },
            },
          },
        },
      },
    );
}
