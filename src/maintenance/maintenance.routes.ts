import { Elysia, type TSchema, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { Principal } from "../auth/auth.model.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { AUTHENTICATED } from "../http/http.openapi.document.ts";
import { ErrorBody, schemaBody, ValidationErrorBody } from "../http/http.openapi.ts";
import {
  createWindow,
  deleteWindow,
  getWindow,
  listWindows,
  type MaintenanceDeps,
  updateWindow,
} from "./maintenance.service.ts";

const tags = ["maintenance windows"];
const security = AUTHENTICATED;
const Nullable = <T extends TSchema>(schema: T) => t.Union([schema, t.Null()]);
const Span = t.Object({ starts_at: t.String(), ends_at: t.String() });

const WindowSchema = t.Object({
  id: t.String(),
  title: t.String(),
  description: Nullable(t.String()),
  monitor_ids: t.Array(t.String()),
  starts_at: Nullable(t.String({ description: "A one-off window's start (ISO 8601)." })),
  ends_at: Nullable(t.String()),
  cron: Nullable(t.String({ description: "A recurring window's starts, 5 fields." })),
  duration_minutes: Nullable(t.Integer()),
  timezone: Nullable(t.String({ description: "The IANA zone the cron is read in." })),
  active: t.Boolean(),
  next_occurrences: t.Array(Span, { description: "Up to 3, the one under way first." }),
  created_at: t.String(),
  updated_at: t.String(),
});

/** Every field optional to the schema (PATCH names only what changes); the rules are checked after. */
const WindowBody = t.Object(
  {
    title: t.Optional(t.String({ description: "Required on create." })),
    description: t.Optional(Nullable(t.String())),
    monitor_ids: t.Optional(t.Array(t.String(), { description: "The organization's monitors." })),
    starts_at: t.Optional(Nullable(t.String({ description: "One-off: ISO 8601 start." }))),
    ends_at: t.Optional(Nullable(t.String({ description: "One-off: after starts_at." }))),
    cron: t.Optional(Nullable(t.String({ description: "Recurring: e.g. `0 2 * * 0`." }))),
    duration_minutes: t.Optional(Nullable(t.Integer({ description: "Recurring: 1–10080." }))),
    timezone: t.Optional(Nullable(t.String({ description: "Recurring: default UTC." }))),
  },
  { additionalProperties: true },
);

const One = t.Object({ data: WindowSchema });
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };
// Before the body is validated: a member learns nothing about the fields it may not write.
const write = {
  transform: ({ principal }: { principal: Principal }) => requirePermission(principal, "write"),
};

/** `/api/v1/maintenance-windows` (decisions.md §15): members read, admins write. */
export function maintenanceRoutes(deps: MaintenanceDeps, guard: AuthPorts["guard"]) {
  return new Elysia({ name: "weir-maintenance", prefix: "/api/v1/maintenance-windows" })
    .use(guard())
    .get("/", async ({ principal }) => ({ data: await listWindows(principal, deps) }), {
      response: { 200: t.Object({ data: t.Array(WindowSchema) }), ...errors },
      detail: { tags, security, summary: "List maintenance windows, newest first" },
    })
    .post(
      "/",
      async ({ principal, body, set }) => {
        set.status = 201;
        return { data: await createWindow(principal, body, deps) };
      },
      {
        ...write,
        body: WindowBody,
        response: { 201: One, ...errors },
        detail: {
          tags,
          security,
          summary:
            "Create a one-off or recurring maintenance window (admin); 403 maintenance_limit_reached past 100",
          requestBody: schemaBody(WindowBody),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, params }) => ({ data: await getWindow(principal, params.id, deps) }),
      {
        response: { 200: One, ...errors },
        detail: { tags, security, summary: "Get a maintenance window" },
      },
    )
    .put(
      "/:id",
      async ({ principal, params, body }) => ({
        data: await updateWindow(principal, params.id, body, deps),
      }),
      {
        ...write,
        body: WindowBody,
        response: { 200: One, ...errors },
        detail: {
          tags,
          security,
          summary: "Update a maintenance window (admin); fields not sent keep their value",
          requestBody: schemaBody(WindowBody),
        },
      },
    )
    .patch(
      "/:id",
      async ({ principal, params, body }) => ({
        data: await updateWindow(principal, params.id, body, deps),
      }),
      {
        ...write,
        body: WindowBody,
        response: { 200: One, ...errors },
        detail: {
          tags,
          security,
          summary: "Change some fields of a maintenance window (admin)",
          requestBody: schemaBody(WindowBody, "Any subset of the fields."),
        },
      },
    )
    .delete(
      "/:id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await deleteWindow(principal, params.id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Delete a maintenance window (admin)" },
      },
    );
}
