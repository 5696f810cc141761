import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { ErrorBody, schemaBody, ValidationErrorBody } from "../http/http.openapi.ts";
import type { PublicBaseUrl } from "../http/http.public-url.ts";
import {
  AttachMonitorBody,
  ComponentBody,
  StatusPageCreateBody,
  StatusPageUpdateBody,
} from "./status-pages.bodies.ts";
import { hostOf, type StatusPage } from "./status-pages.model.ts";
import { presentAttached, presentComponent, presentPage } from "./status-pages.present.ts";
import { AttachedSchema, ComponentSchema, StatusPageSchema } from "./status-pages.schemas.ts";
import {
  addComponent,
  attachMonitor,
  createPage,
  deletePage,
  detachMonitor,
  removeComponent,
  requirePage,
  type StatusPagesDeps,
  shownOf,
  updatePage,
} from "./status-pages.service.ts";

export interface StatusPagesRouteDeps {
  guard: AuthPorts["guard"];
  pages: StatusPagesDeps;
  publicBaseUrl: PublicBaseUrl;
}

const tags = ["status pages"];
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
const One = t.Object({ data: StatusPageSchema });
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };
const writeErrors = { ...errors, 409: ErrorBody };

/** `/api/v1/status-pages` (decisions.md §9, §15): members read, admins write. */
export function statusPagesRoutes(room: StatusPagesRouteDeps) {
  const deps = room.pages;
  const view = async (page: StatusPage, base: string) =>
    presentPage(page, await shownOf(page, deps), base);
  return new Elysia({ prefix: "/api/v1/status-pages" })
    .use(room.guard())
    .derive(({ request, server }) => {
      const base = room.publicBaseUrl(request, server);
      return { base, instanceHost: hostOf(new URL(base).host) };
    })
    .get(
      "/",
      async ({ principal, base }) => ({
        data: await Promise.all(
          (await deps.repo.list(principal.organizationId)).map((page) => view(page, base)),
        ),
      }),
      {
        response: { 200: t.Object({ data: t.Array(StatusPageSchema) }), ...errors },
        detail: { tags, security, summary: "List the organization's status pages, newest first" },
      },
    )
    .post(
      "/",
      async ({ principal, base, instanceHost, body, set }) => {
        requirePermission(principal, "write");
        const caller = { organizationId: principal.organizationId, instanceHost };
        set.status = 201;
        return { data: await view(await createPage(caller, body, deps), base) };
      },
      {
        response: { 201: One, ...writeErrors },
        detail: {
          tags,
          security,
          summary: "Create a status page (admin); 409 slug_taken",
          requestBody: schemaBody(StatusPageCreateBody),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, base, params }) => ({
        data: await view(await requirePage(principal.organizationId, params.id, deps), base),
      }),
      {
        response: { 200: One, ...errors },
        detail: { tags, security, summary: "Get a status page with its monitors and components" },
      },
    )
    .put(
      "/:id",
      async ({ principal, base, instanceHost, params, body }) => {
        requirePermission(principal, "write");
        const caller = { organizationId: principal.organizationId, instanceHost };
        return { data: await view(await updatePage(caller, params.id, body, deps), base) };
      },
      {
        response: { 200: One, ...writeErrors },
        detail: {
          tags,
          security,
          summary: "Update a status page (admin); fields not sent keep their value",
          requestBody: schemaBody(StatusPageUpdateBody),
        },
      },
    )
    .delete(
      "/:id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await deletePage(principal.organizationId, params.id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Delete a status page (admin)" },
      },
    )
    .post(
      "/:id/monitors/:monitor_id",
      async ({ principal, params, body, set }) => {
        requirePermission(principal, "write");
        const { id, monitor_id } = params;
        const attached = await attachMonitor(principal.organizationId, id, monitor_id, body, deps);
        set.status = 201;
        return { data: presentAttached(id, attached) };
      },
      {
        response: { 201: t.Object({ data: AttachedSchema }), ...errors },
        detail: {
          tags,
          security,
          summary: "Show one of the organization's monitors on the page (admin); again: update it",
          requestBody: schemaBody(AttachMonitorBody, undefined, false),
        },
      },
    )
    .delete(
      "/:id/monitors/:monitor_id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await detachMonitor(principal.organizationId, params.id, params.monitor_id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Take a monitor off the page (admin)" },
      },
    )
    .post(
      "/:id/components",
      async ({ principal, params, body, set }) => {
        requirePermission(principal, "write");
        set.status = 201;
        const component = await addComponent(principal.organizationId, params.id, body, deps);
        return { data: presentComponent(component) };
      },
      {
        response: { 201: t.Object({ data: ComponentSchema }), ...errors },
        detail: {
          tags,
          security,
          summary: "Show a bridge's or destination's delivery health on the page (admin)",
          requestBody: schemaBody(ComponentBody),
        },
      },
    )
    .delete(
      "/:id/components/:component_id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await removeComponent(principal.organizationId, params.id, params.component_id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errors },
        detail: { tags, security, summary: "Take a component off the page (admin)" },
      },
    );
}
