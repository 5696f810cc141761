import { type TLiteral, type TSchema, Type } from "@sinclair/typebox";
import {
  COLOR_PATTERN,
  DEFAULT_COLOR,
  GROUP_NAME_MAX,
  HOSTNAME_PATTERN,
  IMPACTS,
  INCIDENT_STATUSES,
  NAME_MAX,
  SLUG_MAX,
  SLUG_MIN,
  SLUG_PATTERN,
  TEXT_MAX,
} from "./status-pages.model.ts";

/**
 * Request bodies of the status pages API as TypeBox schemas: the services check each body
 * against its schema (shared/body-schema.ts) and the routes show the same object in the API
 * reference, so the two cannot drift.
 */

const oneOf = <T extends readonly string[]>(values: T) =>
  Type.Union(values.map((value) => Type.Literal(value)) as TLiteral<T[number]>[]);
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const GroupName = Type.String({ minLength: 1, maxLength: GROUP_NAME_MAX });

const pageFields = {
  name: Type.String({ minLength: 1, maxLength: NAME_MAX, examples: ["Acme status"] }),
  slug: Type.String({
    minLength: SLUG_MIN,
    maxLength: SLUG_MAX,
    pattern: SLUG_PATTERN,
    examples: ["acme"],
  }),
  description: Type.Optional(Nullable(Type.String({ maxLength: TEXT_MAX }))),
  logo_url: Type.Optional(Nullable(Type.String({ description: "An http(s) URL." }))),
  primary_color: Type.Optional(Type.String({ pattern: COLOR_PATTERN, default: DEFAULT_COLOR })),
  show_service_branding: Type.Optional(Type.Boolean({ default: true })),
  allow_subscribers: Type.Optional(
    Type.Boolean({
      default: false,
      description: 'Offer "Get updates by email" on the page; needs the server\'s mail settings.',
    }),
  ),
  custom_domain: Type.Optional(
    Nullable(
      Type.String({
        pattern: HOSTNAME_PATTERN,
        description: "A hostname (no scheme, no port) whose `/` shows this page.",
        examples: ["status.acme.example"],
      }),
    ),
  ),
  groups: Type.Optional(
    Type.Array(Type.Object({ name: GroupName, order: Type.Integer() }), { maxItems: 50 }),
  ),
};

export const StatusPageFields = Type.Object(pageFields);
export const StatusPageCreateBody = Type.Object(
  { status_page: StatusPageFields },
  { examples: [{ status_page: { name: "Acme status", slug: "acme" } }] },
);
export const StatusPageUpdateFields = Type.Partial(StatusPageFields);
export const StatusPageUpdateBody = Type.Object(
  { status_page: StatusPageUpdateFields },
  { examples: [{ status_page: { primary_color: "#0f766e" } }] },
);

const displayFields = {
  display_name: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: NAME_MAX }))),
  display_order: Type.Optional(Type.Integer({ default: 0 })),
  group: Type.Optional(Nullable(GroupName)),
};

export const AttachMonitorBody = Type.Object(displayFields, {
  examples: [{ display_name: "API", display_order: 1 }],
});

export const ComponentBody = Type.Object(
  {
    bridge_id: Type.Optional(Type.String({ minLength: 1 })),
    destination_id: Type.Optional(Type.String({ minLength: 1 })),
    ...displayFields,
  },
  {
    description: "Exactly one of `bridge_id` and `destination_id`.",
    examples: [{ bridge_id: "…", display_name: "Order webhooks" }],
  },
);

export const IncidentCreateBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: NAME_MAX }),
    impact: oneOf(IMPACTS),
    status: oneOf(INCIDENT_STATUSES),
    message: Type.String({ minLength: 1, maxLength: TEXT_MAX }),
    monitor_ids: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  },
  {
    examples: [
      { title: "Slow API", impact: "minor", status: "investigating", message: "Looking." },
    ],
  },
);

export const IncidentUpdateBody = Type.Object(
  {
    status: oneOf(INCIDENT_STATUSES),
    message: Type.String({ minLength: 1, maxLength: TEXT_MAX }),
  },
  { examples: [{ status: "identified", message: "A full disk." }] },
);
