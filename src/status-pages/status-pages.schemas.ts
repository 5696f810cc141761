import { type TSchema, t } from "elysia";

/** Answers of the status pages API, as the API reference shows them (decisions.md §9, §15). */

const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
const open = { additionalProperties: true };

export const PageMonitorSchema = t.Object(
  {
    monitor_id: t.String(),
    display_name: Nullable(t.String()),
    display_order: t.Integer(),
    group: Nullable(t.String()),
    status: t.String({ description: "up | down | degraded | pending | paused | maintenance" }),
  },
  open,
);

export const ComponentSchema = t.Object(
  {
    id: t.String(),
    status_page_id: t.String(),
    bridge_id: t.Optional(t.String()),
    destination_id: t.Optional(t.String()),
    display_name: Nullable(t.String()),
    display_order: t.Integer(),
    group: Nullable(t.String()),
  },
  open,
);

export const StatusPageSchema = t.Object(
  {
    id: t.String(),
    name: t.String(),
    slug: t.String(),
    description: Nullable(t.String()),
    logo_url: Nullable(t.String()),
    primary_color: t.String(),
    show_service_branding: t.Boolean(),
    allow_subscribers: t.Boolean(),
    custom_domain: Nullable(t.String()),
    groups: t.Array(t.Object({ name: t.String(), order: t.Integer() })),
    public_url: t.String({ description: "{base_url}/status/{slug}" }),
    monitors: t.Array(PageMonitorSchema),
    components: t.Array(ComponentSchema),
    inserted_at: t.String(),
    updated_at: t.String(),
  },
  open,
);

export const AttachedSchema = t.Object(
  {
    status_page_id: t.String(),
    monitor_id: t.String(),
    display_name: Nullable(t.String()),
    display_order: t.Integer(),
    group: Nullable(t.String()),
  },
  open,
);

export const IncidentSchema = t.Object(
  {
    id: t.String(),
    status_page_id: t.String(),
    title: t.String(),
    impact: t.String({ description: "none | minor | major | critical" }),
    status: t.String({ description: "investigating | identified | monitoring | resolved" }),
    monitor_ids: t.Array(t.String()),
    updates: t.Array(
      t.Object({ id: t.String(), status: t.String(), message: t.String(), created_at: t.String() }),
    ),
    created_at: t.String(),
    updated_at: t.String(),
    resolved_at: Nullable(t.String()),
  },
  open,
);
