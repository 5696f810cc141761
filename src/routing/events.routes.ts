import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { genericPage, MAX_PAGE_SIZE, pageInfo, parsePageRequest } from "../db/db.pagination.ts";
import { genericPageOf } from "../endpoints/endpoints.schemas.ts";
import { documentedQuery } from "../http/http.openapi.ts";
import { withRetryActions } from "./events.present.ts";
import { type BulkRetry, parseBulkRetry } from "./events.retry.service.ts";
import {
  type EventsDeps,
  getEvent,
  listEventAttempts,
  listEvents,
  parseEventQuery,
  requireEvent,
} from "./events.service.ts";
import type { IngestService } from "./ingest.service.ts";
import {
  EventListQuery,
  errorResponses,
  jsonBody,
  PageQuery,
  security,
} from "./routing.schemas.ts";

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
  body_truncated: t.Optional(
    t.Boolean({ description: "Lists only: the body was cut to its first 64 KiB." }),
  ),
  body_size: t.Optional(t.Integer({ description: "With body_truncated: the whole body's bytes." })),
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
    t.Literal("unrouted"),
  ]),
  filtered_by: t.Array(
    t.Object({
      destination_id: t.String(),
      filter: t.Integer({ description: "Index of the filter object that failed." }),
      path: t.String({ description: "Its failing term: a field path, or $or/$and/$not." }),
    }),
    { description: "A filtered event: why each destination rejected it on arrival." },
  ),
  created_at: t.String(),
  completed_at: Nullable(
    t.String({
      description:
        "A delivered event: when its last delivery succeeded (completed_at − created_at is its latency); null otherwise.",
    }),
  ),
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
  sent: Nullable(
    t.Object(
      {
        method: t.String(),
        url: t.String(),
        headers: t.Record(t.String(), t.String()),
        body: t.String({ description: "The first 64 KiB; base64 when body_encoding is base64." }),
        body_encoding: t.Union([t.Literal("utf8"), t.Literal("base64")]),
        body_truncated: t.Boolean(),
        body_size: t.Integer(),
      },
      {
        description:
          "The request the latest attempt sent, after the transformation; secret values show as {{NAME}} or ***. null until something was sent.",
      },
    ),
  ),
  created_at: t.String(),
});
const RetryActionSchema = t.Union(
  [
    t.Literal("requeued"),
    t.Literal("pulled_forward"),
    t.Literal("created"),
    t.Literal("unchanged"),
  ],
  {
    description:
      "requeued: it had failed; pulled_forward: it was waiting for a retry (attempts unchanged); created: the event was routed again; unchanged: nothing to retry.",
  },
);
const AttemptSchema = t.Object({
  id: t.String(),
  delivery_id: t.String(),
  destination_id: t.String(),
  attempt_number: t.Integer(),
  status_code: Nullable(t.Integer()),
  response_body: t.String({ description: "The first 64 KiB of the answer." }),
  latency_ms: t.Number(),
  error_type: Nullable(t.String()),
  error_code: Nullable(t.String()),
  error_message: Nullable(t.String()),
  created_at: t.String(),
});

export interface EventsParts {
  guard: AuthPorts["guard"];
  events: EventsDeps;
  ingest: IngestService;
  bulkRetry: BulkRetry;
}

/** Events (decisions.md §8, §13, §15): members read; retrying is an admin's write. */
export function eventsRoutes(room: EventsParts) {
  return new Elysia({ prefix: "/api/v1/events" })
    .use(room.guard())
    .get(
      "/",
      async ({ principal, query }) => {
        const page = parsePageRequest(query);
        const filters = parseEventQuery(query);
        const { events, total } = await listEvents(
          principal.organizationId,
          filters,
          page,
          room.events,
        );
        return genericPage(events, pageInfo(page, total));
      },
      {
        response: {
          200: genericPageOf(t.Object(eventFields)),
          ...errorResponses,
        },
        detail: {
          tags,
          security,
          summary:
            "List events, newest first (page, page_size, status, source_id, bridge_id, since, until); bodies over 64 KiB are cut",
          ...documentedQuery(EventListQuery),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, params }) => ({
        data: await getEvent(principal.organizationId, params.id, room.events),
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
    .get(
      "/:id/attempts",
      async ({ principal, params, query }) => {
        // A page holds every attempt of a usual event: 100 unless page_size says less.
        const page = parsePageRequest({ ...query, page_size: query.page_size ?? MAX_PAGE_SIZE });
        const found = await listEventAttempts(
          principal.organizationId,
          params.id,
          page,
          room.events,
        );
        return genericPage(found.attempts, pageInfo(page, found.total));
      },
      {
        response: {
          200: genericPageOf(AttemptSchema),
          ...errorResponses,
        },
        detail: {
          tags,
          security,
          summary:
            "Every attempt of an event's deliveries, oldest first, 100 a page (page, page_size)",
          ...documentedQuery(PageQuery),
        },
      },
    )
    .post(
      "/retry",
      async ({ principal, body }) => {
        requirePermission(principal, "write");
        const query = parseBulkRetry(body);
        return { data: { requeued: await room.bulkRetry.run(principal.organizationId, query) } };
      },
      {
        response: {
          200: t.Object({ data: t.Object({ requeued: t.Integer() }) }),
          ...errorResponses,
        },
        detail: {
          tags,
          security,
          summary:
            "Retry every failed or waiting delivery of the matching events now (admin; 409 retry_in_progress while one runs)",
          requestBody: {
            ...jsonBody(
              "Optional filters: status, source_id, bridge_id, destination_id, since, until.",
            ),
            required: false,
          },
        },
      },
    )
    .post(
      "/:id/retry",
      async ({ principal, params }) => {
        requirePermission(principal, "write");
        const event = requireEvent(principal.organizationId, params.id, room.events);
        const { requeued, actions } = room.ingest.retry(event);
        const view = await getEvent(principal.organizationId, event.id, room.events);
        return {
          data: { ...view, deliveries: withRetryActions(view.deliveries, actions), requeued },
        };
      },
      {
        response: {
          200: t.Object({
            data: t.Object({
              ...eventFields,
              deliveries: t.Array(
                t.Composite([DeliverySchema, t.Object({ action: RetryActionSchema })]),
              ),
              requeued: t.Integer({ description: "Deliveries made due now." }),
            }),
          }),
          ...errorResponses,
        },
        detail: {
          tags,
          security,
          summary:
            "Retry an event now: failed deliveries are re-queued, waiting ones pulled forward; a paused, filtered or unrouted event is routed again through its source's bridges (admin)",
          requestBody: { ...jsonBody("No body needed."), required: false },
        },
      },
    );
}
