import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import { schemaBody } from "../http/http.openapi.ts";
import { SourceCreateBody, SourcePatchBody, SourceRenameBody } from "./routing.bodies.ts";
import { presentSource } from "./routing.present.ts";
import type { RoutingParts } from "./routing.room.ts";
import { errorResponses, nameErrorResponses, SourceSchema, security } from "./routing.schemas.ts";
import {
  createSource,
  deleteSource,
  patchSource,
  renameSource,
  requireSource,
} from "./sources.service.ts";

const tags = ["sources"];
const One = t.Object({ data: SourceSchema });

/** Sources CRUD (interface.md "Sources and deduplication"): members read, admins write. */
export function sourcesRoutes(room: RoutingParts) {
  const deps = room.sources;
  return new Elysia({ prefix: "/api/v1/sources" })
    .use(room.guard())
    .derive(({ request, server }) => ({ base: room.publicBaseUrl(request, server) }))
    .get(
      "/",
      async ({ principal, base }) => ({
        data: (await deps.sources.list(principal.organizationId)).map((s) =>
          presentSource(s, base),
        ),
      }),
      {
        response: { 200: t.Object({ data: t.Array(SourceSchema) }), ...errorResponses },
        detail: { tags, security, summary: "List the organization's sources, newest first" },
      },
    )
    .post(
      "/",
      async ({ principal, base, body, set }) => {
        requirePermission(principal, "write");
        set.status = 201;
        const source = await createSource(principal.organizationId, body, deps);
        return { data: presentSource(source, base) };
      },
      {
        response: { 201: One, ...nameErrorResponses },
        detail: {
          tags,
          security,
          summary: "Create a source (admin)",
          requestBody: schemaBody(SourceCreateBody),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, base, params }) => ({
        data: presentSource(await requireSource(principal.organizationId, params.id, deps), base),
      }),
      {
        response: { 200: One, ...errorResponses },
        detail: { tags, security, summary: "Get a source with its deduplication_config" },
      },
    )
    .put(
      "/:id",
      async ({ principal, base, params, body }) => {
        requirePermission(principal, "write");
        const source = await renameSource(principal.organizationId, params.id, body, deps);
        return { data: presentSource(source, base) };
      },
      {
        response: { 200: One, ...nameErrorResponses },
        detail: {
          tags,
          security,
          summary: "Rename a source (admin)",
          requestBody: schemaBody(SourceRenameBody),
        },
      },
    )
    .patch(
      "/:id",
      async ({ principal, base, params, body }) => {
        requirePermission(principal, "write");
        const source = await patchSource(principal.organizationId, params.id, body, deps);
        return { data: presentSource(source, base) };
      },
      {
        response: { 200: One, ...nameErrorResponses },
        detail: {
          tags,
          security,
          summary: "Replace a source's deduplication_config (admin)",
          requestBody: schemaBody(SourcePatchBody),
        },
      },
    )
    .delete(
      "/:id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await deleteSource(principal.organizationId, params.id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), ...errorResponses },
        detail: {
          tags,
          security,
          summary: "Delete a source, its bridges and destinations (admin)",
        },
      },
    );
}
