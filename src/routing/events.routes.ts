import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { genericPage, pageInfo, parsePageRequest } from "../db/db.pagination.ts";
import {
  type EventsDeps,
  getEvent,
  listEvents,
  parseEventQuery,
  requireEvent,
} from "./events.service.ts";
import type { IngestService } from "./ingest.service.ts";
import { errorResponses, jsonBody, security } from "./routing.schemas.ts";

const tags = ["events"];
const Nullable = <T extends Parameters<typeof t.Nullable>[0]>(schema: T) => t.Nullable(schema);

const RequestSchema = t.Object({
  method: t.String(),
  path: t.String({ description: 'Sub-path after the source slug; "" when none.' }),
  query: t.Record(t.String(), t.String()),
  query_string: t.String(),
  headers: t.Record(t.String(), t.String()),
  body: t.String({ description: "UTF-8 text, or base64 when body_encoding is base64." }),
  body_encoding: t.Union([t.Literal("utf8"), t.Literal("base64")]),
});
const eventFields = {
  id: t.String(),
  source_id: t.String(),
  bridge_id: Nullable(t.String({ description: "The first of bridge_ids (null: none)." })),
  bridge_ids: t.Array(t.String(), {
    description:
      "Every bridge the event went through: those whose destinations matched it; when none did, the active bridges that filtered it, or the paused ones that held it.",
  }),
  request: RequestSchema,
  status: t.Union([
    t.Literal("pending"),
    t.Literal("delivered"),
    t.Literal("failed"),
    t.Literal("filtered"),
    t.Literal("paused"),
  ]),
  created_at: t.String(),
};
const DeliverySchema = t.Object({
  id: t.String(),
  destination_id: t.String(),
  status: t.String(),
  attempts: t.Integer(),
  status_code: Nullable(t.Integer()),
  response_body: Nullable(t.String()),
  latency_ms: Nullable(t.Number()),
  error_type: Nullable(t.String()),
  error_code: Nullable(t.String()),
  error_message: Nullable(t.String()),
  next_attempt_at: Nullable(t.String()),
  created_at: t.String(),
});

export interface EventsParts {
  guard: AuthPorts["guard"];
  events: EventsDeps;
  ingest: IngestService;
}

/** Events (decisions.md §8, §13): members read; retrying is an admin's write. */
export function eventsRoutes(room: EventsParts) {
  return new Elysia({ prefix: "/api/v1/events" })
    .use(room.guard())
    .get(
      "/",
      ({ principal, query }) => {
        const page = parsePageRequest(query);
        const filters = parseEventQuery(query);
        const { events, total } = listEvents(principal.organizationId, filters, page, room.events);
        return genericPage(events, pageInfo(page, total));
      },
      {
        response: {
          200: t.Object({
            data: t.Array(t.Object(eventFields)),
            page: t.Integer(),
            page_size: t.Integer(),
            total: t.Integer(),
          }),
          ...errorResponses,
        },
        detail: {
          tags,
          security,
          summary:
            "List events, newest first (page, page_size, status, source_id, bridge_id, since, until)",
        },
      },
    )
    .get(
      "/:id",
      ({ principal, params }) => ({
        data: getEvent(principal.organizationId, params.id, room.events),
      }),
      {
        response: {
          200: t.Object({
            data: t.Object({
              ...eventFields,
              status_reason: t.Optional(
                t.String({
                  description:
                    'Why a failed event was delivered nowhere, e.g. "filter budget exceeded"; absent otherwise.',
                }),
              ),
              deliveries: t.Array(DeliverySchema),
            }),
          }),
          ...errorResponses,
        },
        detail: { tags, security, summary: "Get an event with its deliveries" },
      },
    )
    .post(
      "/:id/retry",
      ({ principal, params }) => {
        requirePermission(principal, "write");
        const event = requireEvent(principal.organizationId, params.id, room.events);
        const requeued = room.ingest.retry(event);
        return { data: { ...getEvent(principal.organizationId, event.id, room.events), requeued } };
      },
      {
        response: {
          200: t.Object({
            data: t.Object({
              ...eventFields,
              deliveries: t.Array(DeliverySchema),
              requeued: t.Integer(),
            }),
          }),
          ...errorResponses,
        },
        detail: {
          tags,
          security,
          summary:
            "Re-queue an event's failed deliveries; a paused or filtered event is routed again through its source's bridges (admin)",
          requestBody: { ...jsonBody("No body needed."), required: false },
        },
      },
    );
}
