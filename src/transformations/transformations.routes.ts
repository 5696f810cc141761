import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { AUTHENTICATED } from "../http/http.openapi.document.ts";
import { ErrorBody, schemaBody, ValidationErrorBody } from "../http/http.openapi.ts";
import {
  TransformationCreateBody,
  TransformationTestBody,
  TransformationUpdateBody,
  UnsavedTransformationTestBody,
} from "./transformations.bodies.ts";
import {
  createTransformation,
  deleteTransformation,
  getTransformation,
  listTransformations,
  type TransformationsDeps,
  testSavedTransformation,
  testUnsavedTransformation,
  updateTransformation,
} from "./transformations.service.ts";

const tags = ["transformations"];
const security = AUTHENTICATED;
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };

const TransformationSchema = t.Object({
  id: t.String(),
  name: t.String(),
  code: t.String({ description: 'addHandler("transform", (request, context) => request)' }),
  created_at: t.String(),
  updated_at: t.String(),
});
const RequestSchema = t.Object({
  method: t.String(),
  path: t.String(),
  query: t.Record(t.String(), t.Unknown()),
  headers: t.Record(t.String(), t.String()),
  body: t.Unknown({ description: "Parsed when JSON, the text otherwise." }),
});
const TestSchema = t.Object({
  data: t.Object({
    request: t.Nullable(RequestSchema, { description: "null: dropped (filtered) or failed." }),
    logs: t.Array(t.Object({ level: t.String(), message: t.String() })),
    error: t.Nullable(
      t.Object({
        code: t.Union([t.Literal("script_error"), t.Literal("timeout"), t.Literal("memory_limit")]),
        message: t.String({
          description: "A script error ends with (line L, column C) when known.",
        }),
        line: t.Optional(t.Number({ description: "Line of the code where a script error arose." })),
        column: t.Optional(t.Number()),
      }),
    ),
  }),
});
const One = t.Object({ data: TransformationSchema });

/** `/api/v1/transformations` (decisions.md §8, §13): CRUD and the two test runs. */
export function transformationsRoutes(deps: TransformationsDeps, guard: AuthPorts["guard"]) {
  return new Elysia({ name: "weir-transformations", prefix: "/api/v1/transformations" })
    .use(guard())
    .get(
      "/",
      async ({ principal }) => ({
        data: await listTransformations(principal.organizationId, deps),
      }),
      {
        response: { 200: t.Object({ data: t.Array(TransformationSchema) }), ...errors },
        detail: { tags, security, summary: "List the organization's transformations" },
      },
    )
    .post(
      "/",
      async ({ principal, body, set }) => {
        requirePermission(principal, "write");
        const data = await createTransformation(principal.organizationId, body, deps);
        set.status = 201;
        return { data };
      },
      {
        response: { 201: One, ...errors },
        detail: {
          tags,
          security,
          summary: "Create a transformation (admin); a syntax error is a 422 naming the line",
          requestBody: schemaBody(TransformationCreateBody),
        },
      },
    )
    .post(
      "/test",
      async ({ principal, body }) => {
        // Running code hands it every secret as `context.env`: an admin's act (decisions.md §15).
        requirePermission(principal, "write");
        return { data: await testUnsavedTransformation(principal.organizationId, body, deps) };
      },
      {
        response: { 200: TestSchema, ...errors },
        detail: {
          tags,
          security,
          summary: "Run unsaved code on a sample request (admin)",
          requestBody: schemaBody(UnsavedTransformationTestBody),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, params }) => ({
        data: await getTransformation(principal.organizationId, params.id, deps),
      }),
      { response: { 200: One, ...errors }, detail: { tags, security, summary: "Get one" } },
    )
    .put(
      "/:id",
      async ({ principal, params, body }) => {
        requirePermission(principal, "write");
        return {
          data: await updateTransformation(principal.organizationId, params.id, body, deps),
        };
      },
      {
        response: { 200: One, ...errors },
        detail: {
          tags,
          security,
          summary: "Change name and/or code (admin)",
          requestBody: schemaBody(TransformationUpdateBody),
        },
      },
    )
    .delete(
      "/:id",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await deleteTransformation(principal.organizationId, params.id, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), 409: ErrorBody, ...errors },
        detail: {
          tags,
          security,
          summary:
            "Delete a transformation (admin); 409 `in_use` naming the destinations that run it",
        },
      },
    )
    .post(
      "/:id/test",
      async ({ principal, params, body }) => {
        requirePermission(principal, "write");
        return {
          data: await testSavedTransformation(principal.organizationId, params.id, body, deps),
        };
      },
      {
        response: { 200: TestSchema, ...errors },
        detail: {
          tags,
          security,
          summary: "Run the saved code on a sample request (admin)",
          requestBody: schemaBody(TransformationTestBody),
        },
      },
    );
}
