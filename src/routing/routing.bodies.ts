import { type SchemaOptions, type TLiteral, type TSchema, Type } from "@sinclair/typebox";
import { MAX_FIELDS, MAX_TTL_SECONDS } from "../dedup/dedup.model.ts";
import { VerificationBody } from "../verification/verification.schemas.ts";
import {
  DESTINATION_TYPES,
  HTTP_METHODS,
  MAX_RETRIES_LIMIT,
  PRIORITIES,
} from "./destinations.model.ts";
import { FILTER_LIMITS } from "./filters.model.ts";
import { NAME_MAX } from "./sources.model.ts";

/**
 * Request bodies of the routing management API as TypeBox schemas: the services check each body
 * against its schema (shared/body-schema.ts) before their own checks, and the routes show the
 * same object as the body's schema in the API reference, so the two cannot drift. Unknown
 * properties are allowed (a client may send a read answer back as it got it).
 */

const oneOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)) as TLiteral<T[number]>[],
    description ? { description } : {},
  );
const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) =>
  Type.Union([schema, Type.Null()], options);

const Name = Type.String({ minLength: 1, maxLength: NAME_MAX, examples: ["Shop orders"] });
const SECRET_NOTE = " May hold `{{SECRET_NAME}}`.";

const FieldPaths = Type.Array(Type.String(), { minItems: 1, maxItems: MAX_FIELDS });

/** `deduplication_config` of a source: one strategy, a TTL. */
export const DedupConfigBody = Nullable(
  Type.Object(
    {
      enabled: Type.Optional(Nullable(Type.Boolean({ default: true }))),
      body_path: Type.Optional(Type.String({ examples: ["body.id"] })),
      include_fields: Type.Optional(FieldPaths),
      exclude_fields: Type.Optional(FieldPaths),
      ttl_seconds: Type.Optional(
        Nullable(Type.Integer({ minimum: 1, maximum: MAX_TTL_SECONDS, default: 300 })),
      ),
    },
    {
      description:
        "Exactly one of body_path, include_fields, exclude_fields; null: no deduplication.",
    },
  ),
);

export const SourceCreateBody = Type.Object(
  {
    name: Name,
    type: Type.Optional(
      Type.String({
        pattern: "^[a-z][a-z0-9_-]{0,31}$",
        default: "webhook",
        examples: ["webhook"],
      }),
    ),
    deduplication_config: Type.Optional(DedupConfigBody),
    verification: Type.Optional(VerificationBody),
  },
  { examples: [{ name: "Shop orders", type: "webhook" }] },
);

export const SourceRenameBody = Type.Object(
  { name: Name },
  { examples: [{ name: "Shop orders (EU)" }] },
);

export const SourcePatchBody = Type.Object(
  {
    deduplication_config: Type.Optional(DedupConfigBody),
    name: Type.Optional(Name),
    verification: Type.Optional(VerificationBody),
  },
  {
    description:
      "deduplication_config (replaced whole; null removes it), name and/or verification (replaced whole; null removes it).",
    examples: [{ deduplication_config: { body_path: "body.id", ttl_seconds: 3600 } }],
  },
);

const destinationFields = {
  name: Name,
  type: Type.Optional(Nullable(oneOf(DESTINATION_TYPES), { default: "http" })),
  priority: Type.Optional(Nullable(oneOf(PRIORITIES), { default: "normal" })),
  url: Type.Optional(
    Nullable(
      Type.String({ description: `http: required; an absolute http(s) URL.${SECRET_NOTE}` }),
    ),
  ),
  method: Type.Optional(Nullable(oneOf(HTTP_METHODS, "http only."), { default: "POST" })),
  headers: Type.Optional(
    Nullable(
      Type.Record(Type.String(), Type.String(), { description: `http only.${SECRET_NOTE}` }),
    ),
  ),
  max_retries: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, maximum: MAX_RETRIES_LIMIT, default: MAX_RETRIES_LIMIT })),
  ),
  webhook_url: Type.Optional(
    Nullable(Type.String({ description: `slack, discord: required.${SECRET_NOTE}` })),
  ),
  bot_token: Type.Optional(
    Nullable(Type.String({ description: `telegram: required.${SECRET_NOTE}` })),
  ),
  chat_id: Type.Optional(Nullable(Type.String({ description: "telegram: required." }))),
  filters: Type.Optional(
    Nullable(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        maxItems: FILTER_LIMITS.objects,
        description: "Filter objects; all must match (see the routing guide).",
      }),
    ),
  ),
  transformation_id: Type.Optional(Nullable(Type.String())),
  path_forwarding: Type.Optional(
    Type.Boolean({
      default: true,
      description: "http only: append the event's sub-path to the URL.",
    }),
  ),
};

const httpExample = {
  name: "Orders API",
  type: "http",
  url: "https://api.example.com/hooks/orders",
  method: "POST",
  headers: { Authorization: "Bearer {{ORDERS_TOKEN}}" },
  max_retries: 5,
  filters: [{ "body.type": "order.created" }],
};

export const DestinationBody = Type.Object(destinationFields, {
  description:
    "http `{url, method?, headers?, max_retries?}`; slack/discord `{webhook_url}`; telegram `{bot_token, chat_id}`.",
  examples: [httpExample],
});

export const DestinationUpdateBody = Type.Partial(Type.Object(destinationFields), {
  description: "Any fields of the create body, over the stored ones; the type cannot change.",
  examples: [{ priority: "high", max_retries: 3 }],
});

export const BridgeCreateBody = Type.Object(
  {
    name: Name,
    source: Type.Optional(
      Type.Object(
        {
          name: Name,
          type: Type.Optional(Type.String({ default: "webhook" })),
          deduplication_config: Type.Optional(DedupConfigBody),
        },
        { description: "A new source; or name an existing one with source_id." },
      ),
    ),
    source_id: Type.Optional(
      Type.String({ description: "An existing source (instead of source)." }),
    ),
    destinations: Type.Optional(Nullable(Type.Array(DestinationBody, { default: [] }))),
  },
  {
    examples: [
      {
        name: "Orders to the API",
        source: { name: "Shop orders (bridged)", type: "webhook" },
        destinations: [httpExample],
      },
    ],
  },
);

export const BridgeUpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    status: Type.Optional(Nullable(oneOf(["active", "paused"] as const))),
  },
  { description: "name and/or status.", examples: [{ status: "paused" }] },
);

export const FilterCheckBody = Type.Object(
  {
    filters: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      maxItems: FILTER_LIMITS.objects,
      description: "A draft filter list, as a destination's `filters`.",
    }),
    event_id: Type.Optional(Type.String({ description: "Try the filters on this event." })),
    source_id: Type.Optional(
      Type.String({ description: "Or on this source's most recent events (newest first)." }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 20,
        default: 5,
        description: "How many of the source's events.",
      }),
    ),
  },
  {
    description:
      "Validates `filters` as saving a destination does; with event_id or source_id also says whether each event passes.",
    examples: [{ filters: [{ "body.type": "order.created" }], source_id: "src_…" }],
  },
);

/** The longest body a dedup check hashes: ingest bodies are bigger, but a check is typed. */
export const DEDUP_CHECK_BODY_MAX = 256 * 1024;

const CheckedRequest = Type.Object(
  {
    headers: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: 200 })),
    query: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: 200 })),
    body: Type.Optional(
      Type.String({ maxLength: DEDUP_CHECK_BODY_MAX, description: "The raw body text." }),
    ),
  },
  { description: "A request as the source would receive it." },
);

export const DedupCheckBody = Type.Object(
  {
    a: CheckedRequest,
    b: CheckedRequest,
    settings: Type.Optional(DedupConfigBody),
  },
  {
    description:
      "Two requests and, optionally, unsaved deduplication settings (else the source's saved ones).",
    examples: [
      {
        a: { body: '{"id":"evt_1","n":1}' },
        b: { body: '{"id":"evt_1","n":2}' },
        settings: { body_path: "body.id" },
      },
    ],
  },
);
