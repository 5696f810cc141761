import { t } from "elysia";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import { VerificationBody, VerificationView } from "../verification/verification.schemas.ts";

/** Error answers every endpoints route may give, for the OpenAPI document. */
export const errorResponses = {
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  422: ValidationErrorBody,
};

const Nullable = <T extends Parameters<typeof t.Nullable>[0]>(schema: T) => t.Nullable(schema);

export const CustomResponseSchema = Nullable(
  t.Object(
    {
      status: t.Integer({ minimum: 100, maximum: 599 }),
      headers: t.Record(t.String(), t.String()),
      body: t.String(),
      delay_ms: t.Integer({ minimum: 0, maximum: 30_000 }),
    },
    { description: "What capture answers instead of the default 200; null: the default." },
  ),
);

const endpointFields = {
  id: t.String(),
  name: t.String(),
  slug: t.String(),
  status: t.Union([t.Literal("active"), t.Literal("paused")]),
  webhook_url: t.String({ description: "Capture URL built from the slug." }),
  organization_id: Nullable(t.String()),
  request_count: t.Integer(),
  last_request_at: Nullable(t.String()),
  refused: t.Object(
    {
      rate_limited: t.Integer({
        description: "Captures refused with 429 for the plan's rate limit.",
      }),
      payload_too_large: t.Integer({
        description: "Captures refused with 413 (over max_body_bytes).",
      }),
      last_refused_at: Nullable(t.String()),
    },
    {
      description:
        "Captures this endpoint refused since it was created (counted every few seconds).",
    },
  ),
  forward_url: Nullable(t.String()),
  response: CustomResponseSchema,
  verification: VerificationView,
  updated_at: t.String(),
};

/** Endpoint in the `debug-endpoints` family (`/debug/{slug}`, `created_at`). */
export const DebugEndpointSchema = t.Object({ ...endpointFields, created_at: t.String() });
/** Endpoint in the `endpoints` family (`/w/{slug}`, `inserted_at`). */
export const FamilyEndpointSchema = t.Object({ ...endpointFields, inserted_at: t.String() });

/** The generic paginated envelope of interface.md (Pagination). */
export const genericPageOf = <T extends Parameters<typeof t.Array>[0]>(item: T) =>
  t.Object({
    data: t.Array(item),
    page: t.Integer(),
    page_size: t.Integer(),
    total: t.Integer(),
  });

export const PageQuery = t.Object({
  page: t.Optional(t.String({ description: "1-based page number (default 1)." })),
  page_size: t.Optional(t.String({ description: "Items per page, 1–100 (default 20)." })),
});

/** A request list's query: the page, and the filter of decisions.md §14. */
export const RequestListQuery = t.Object({
  page: t.Optional(t.String({ description: "1-based page number (default 1)." })),
  page_size: t.Optional(t.String({ description: "Items per page, 1–100 (default 20)." })),
  q: t.Optional(
    t.String({
      description:
        "Text searched in the path, query, headers and body (first 64 KiB) across the endpoint's whole history; case-insensitive substring.",
    }),
  ),
  method: t.Optional(t.String({ description: "HTTP method(s), comma-separated, e.g. POST,PUT." })),
  since: t.Optional(
    t.String({ description: "ISO 8601 instant: requests received at or after it." }),
  ),
  until: t.Optional(t.String({ description: "ISO 8601 instant: requests received before it." })),
  verification: t.Optional(
    t.String({
      description:
        "Signature verdict(s), comma-separated: valid, invalid, missing, not_configured.",
    }),
  ),
});

const endpointBodyFields = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  slug: t.Optional(
    t.String({
      pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$",
      minLength: 3,
      maxLength: 63,
      description: "Create only; generated from the name when omitted; cannot be changed.",
    }),
  ),
  status: t.Optional(t.Union([t.Literal("active"), t.Literal("paused")])),
  response: t.Optional(CustomResponseSchema),
  forward_url: t.Optional(Nullable(t.String({ format: "uri" }))),
  verification: t.Optional(VerificationBody),
});

/**
 * The documented request body `{debug_endpoint: {...}}`. Routes check bodies in the service so
 * that 422 names `name` and `slug` as decisions.md §4 says, so this is documentation only.
 */
export function endpointRequestBody(description: string) {
  return {
    required: true,
    description,
    content: {
      "application/json": {
        // Plain JSON Schema: TypeBox's symbol-keyed metadata is not part of an OpenAPI document.
        schema: JSON.parse(JSON.stringify(t.Object({ debug_endpoint: endpointBodyFields }))),
        example: {
          debug_endpoint: {
            name: "GitHub hooks",
            slug: "github-hooks",
            forward_url: "http://127.0.0.1:3000/webhooks",
            response: { status: 202, headers: { "x-handled-by": "weir" }, body: "ok", delay_ms: 0 },
          },
        },
      },
    },
  };
}
