import { t } from "elysia";
import { AUTHENTICATED } from "../http/http.openapi.document.ts";
import { ErrorBody, PAGE_QUERY, ValidationErrorBody } from "../http/http.openapi.ts";
import { VerificationView } from "../verification/verification.schemas.ts";

/** Error answers every routing management route may give, for the OpenAPI document. */
export const errorResponses = {
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  422: ValidationErrorBody,
};

/** Writes that may meet a name another source of the organization holds (409 `name_taken`). */
export const nameErrorResponses = { ...errorResponses, 409: ErrorBody };

const Nullable = <T extends Parameters<typeof t.Nullable>[0]>(schema: T) => t.Nullable(schema);

export const SourceSchema = t.Object({
  id: t.String(),
  name: t.String(),
  type: t.String(),
  slug: t.String(),
  ingest_url: t.String({ description: "`{base_url}/in/{slug}`: any method, any sub-path." }),
  deduplication_config: Nullable(
    t.Object({
      enabled: t.Boolean(),
      body_path: t.Optional(t.String()),
      include_fields: t.Optional(t.Array(t.String())),
      exclude_fields: t.Optional(t.Array(t.String())),
      ttl_seconds: t.Integer(),
    }),
  ),
  verification: VerificationView,
  created_at: t.String(),
  updated_at: t.String(),
});

export const DestinationSchema = t.Object({
  id: t.String(),
  bridge_id: t.String(),
  name: t.String(),
  type: t.Union([
    t.Literal("http"),
    t.Literal("slack"),
    t.Literal("discord"),
    t.Literal("telegram"),
  ]),
  priority: t.Union([t.Literal("normal"), t.Literal("high")]),
  url: Nullable(t.String()),
  method: Nullable(t.String()),
  headers: Nullable(t.Record(t.String(), t.String())),
  max_retries: t.Integer(),
  webhook_url: Nullable(t.String()),
  bot_token: Nullable(t.String()),
  chat_id: Nullable(t.String()),
  filters: t.Array(t.Unknown()),
  transformation_id: Nullable(t.String()),
  path_forwarding: Nullable(
    t.Boolean({
      description: "http only (else null): the sub-path and query are appended to url.",
    }),
  ),
  signing_secret: t.Optional(
    t.String({ description: "http only, and only in the answer that creates the destination." }),
  ),
  created_at: t.String(),
  updated_at: t.String(),
});

export const BridgeSchema = t.Object({
  id: t.String(),
  name: t.String(),
  status: t.Union([t.Literal("active"), t.Literal("paused")]),
  source_id: t.String(),
  destinations: t.Array(DestinationSchema),
  created_at: t.String(),
  updated_at: t.String(),
});

/** The filters of the event list (events.service.ts parseEventQuery validates them). */
/** Page parameters alone, for lists with no other filter. */
export const PageQuery = t.Object({ ...PAGE_QUERY });

export const EventListQuery = t.Object({
  ...PAGE_QUERY,
  status: t.Optional(
    t.Union(
      ["pending", "delivered", "failed", "filtered", "paused", "unrouted"].map((s) => t.Literal(s)),
    ),
  ),
  source_id: t.Optional(t.String({ description: "Events of this source." })),
  bridge_id: t.Optional(t.String({ description: "Events that went through this bridge." })),
  since: t.Optional(
    t.String({ format: "date-time", description: "ISO 8601: events received at or after it." }),
  ),
  until: t.Optional(
    t.String({ format: "date-time", description: "ISO 8601: events received before it." }),
  ),
});

/** A JSON request body documented in words (validation is the room's own, for 422 keys). */
export const jsonBody = (description: string) => ({
  description,
  required: true,
  content: { "application/json": { schema: { type: "object" as const } } },
});

/** What the auth guard takes (the document builder states it on every guarded route anyway). */
export const security = AUTHENTICATED;
