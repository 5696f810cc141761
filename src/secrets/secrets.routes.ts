import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { AUTHENTICATED } from "../http/http.openapi.document.ts";
import { ErrorBody, schemaBody, ValidationErrorBody } from "../http/http.openapi.ts";
import { SecretCreateBody, SecretUpdateBody } from "./secrets.bodies.ts";
import {
  createSecret,
  deleteSecret,
  getSecret,
  listSecrets,
  type SecretsDeps,
  updateSecret,
} from "./secrets.service.ts";

const tags = ["secrets"];
const security = AUTHENTICATED;
const SecretSchema = t.Object({
  name: t.String({ description: "^[A-Z][A-Z0-9_]*$; referenced as {{NAME}}." }),
  created_at: t.String(),
  updated_at: t.String(),
});
const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

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
          requestBody: schemaBody(SecretCreateBody),
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
          requestBody: schemaBody(SecretUpdateBody),
        },
      },
    )
    .delete(
      "/:name",
      async ({ principal, params, set }) => {
        requirePermission(principal, "write");
        await deleteSecret(principal.organizationId, params.name, deps);
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
