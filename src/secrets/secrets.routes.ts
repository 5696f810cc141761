import { Elysia, type TSchema, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import {
  createSecret,
  deleteSecret,
  getSecret,
  listSecrets,
  type SecretsDeps,
  updateSecret,
} from "./secrets.service.ts";

const tags = ["secrets"];
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
const SecretSchema = t.Object({
  name: t.String({ description: "^[A-Z][A-Z0-9_]*$; referenced as {{NAME}}." }),
  created_at: t.String(),
  updated_at: t.String(),
});
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
/** An OpenAPI request body from a TypeBox schema (plain JSON Schema, no symbol metadata). */
export const jsonBody = (description: string, schema: TSchema) => ({
  required: true,
  description,
  content: { "application/json": { schema: JSON.parse(JSON.stringify(schema)) } },
});
const VALUE = t.String({ description: "The secret value; never returned." });

/**
 * `/api/v1/secrets` (decisions.md §8): members read names and dates, admins write. The value
 * goes in and never comes out, not even in an error.
 */
export function secretsRoutes(deps: SecretsDeps, guard: AuthPorts["guard"]) {
  return new Elysia({ name: "weir-secrets", prefix: "/api/v1/secrets" })
    .use(guard())
    .get("/", ({ principal }) => ({ data: listSecrets(principal.organizationId, deps) }), {
      response: { 200: t.Object({ data: t.Array(SecretSchema) }), ...errors },
      detail: { tags, security, summary: "List the organization's secrets (names and dates)" },
    })
    .post(
      "/",
      ({ principal, body, set }) => {
        requirePermission(principal, "write");
        set.status = 201;
        return { data: createSecret(principal.organizationId, body, deps) };
      },
      {
        response: {
          201: t.Object({ data: SecretSchema }),
          ...errors,
          409: ErrorBody,
          422: ValidationErrorBody,
        },
        detail: {
          tags,
          security,
          summary: "Create a secret (admin)",
          requestBody: jsonBody(
            "`{name, value}`",
            t.Object({ name: t.String({ pattern: "^[A-Z][A-Z0-9_]*$" }), value: VALUE }),
          ),
        },
      },
    )
    .get(
      "/:name",
      ({ principal, params }) => ({ data: getSecret(principal.organizationId, params.name, deps) }),
      {
        response: { 200: t.Object({ data: SecretSchema }), ...errors },
        detail: { tags, security, summary: "Get a secret's name and dates" },
      },
    )
    .put(
      "/:name",
      ({ principal, params, body }) => {
        requirePermission(principal, "write");
        return { data: updateSecret(principal.organizationId, params.name, body, deps) };
      },
      {
        response: { 200: t.Object({ data: SecretSchema }), ...errors, 422: ValidationErrorBody },
        detail: {
          tags,
          security,
          summary: "Replace a secret's value (admin)",
          requestBody: jsonBody("`{value}`", t.Object({ value: VALUE })),
        },
      },
    )
    .delete(
      "/:name",
      ({ principal, params, set }) => {
        requirePermission(principal, "write");
        deleteSecret(principal.organizationId, params.name, deps);
        set.status = 204;
      },
      {
        response: { 204: t.Void(), 409: ErrorBody, ...errors },
        detail: {
          tags,
          security,
          summary: "Delete a secret (admin); 409 `in_use` naming what still refers to it",
        },
      },
    );
}
