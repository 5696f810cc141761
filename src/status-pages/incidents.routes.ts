import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { ErrorBody, schemaBody, ValidationErrorBody } from "../http/http.openapi.ts";
import {
  createIncident,
  deleteIncident,
  type IncidentsDeps,
  listIncidents,
  postUpdate,
} from "./incidents.service.ts";
import { IncidentCreateBody, IncidentUpdateBody } from "./status-pages.bodies.ts";
import { presentIncident } from "./status-pages.present.ts";
import { IncidentSchema } from "./status-pages.schemas.ts";

const tags = ["status pages"];
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];

const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };

/** A page's incidents (decisions.md §15): members read, admins write. */
export function incidentsRoutes(room: { guard: AuthPorts["guard"]; incidents: IncidentsDeps }) {
  const deps = room.incidents;
  return new Elysia({ prefix: "/api/v1/status-pages/:id/incidents" })
    .use(room.guard())
    .get(
      "/",
      async ({ principal, params }) => ({
        data: (await listIncidents(principal.organizationId, params.id, deps)).map(presentIncident),
      }),
      {
        response: { 200: t.Object({ data: t.Array(IncidentSchema) }), ...errors },
        detail: { tags, security, summary: "A page's incidents with their updates, newest first" },
      },
    )
    .post(
      "/",
      async ({ principal, params, body, set }) => {
        requirePermission(principal, "write");
        set.status = 201;
        const incident = await createIncident(principal.organizationId, params.id, body, deps);
        return { data: presentIncident(incident) };
      },
      {
        response: { 201: t.Object({ data: IncidentSchema }), ...errors },
        detail: {
          tags,
          security,
          summary: "Open an incident on the page (admin)",
          requestBody: schemaBody(IncidentCreateBody),
        },
      },
    )
    .post(
      "/:incident_id/updates",
      async ({ principal, params, body, set }) => {
        requirePermission(principal, "write");
        const { id, incident_id } = params;
        set.status = 201;
        const incident = await postUpdate(principal.organizationId, id, incident_id, body, deps);
        return { data: presentIncident(incident) };
      },
      {
        response: { 201: t.Object({ data: IncidentSchema }), ...errors },
        detail: {
          tags,
          security,
          summary: "Post an update; `resolved` sets resolved_at (admin)",
          requestBody: schemaBody(IncidentUpdateBody),
        },
      },
    )
    .delete(
      "/:incident_id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await deleteIncident(principal.organizationId, params.id, params.incident_id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Delete an incident with its updates (admin)" },
      },
    );
}
