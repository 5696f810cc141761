import { Elysia, t } from "elysia";
import { ErrorBody } from "../http/http.openapi.ts";
import {
  assertCanCreateApiKey,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from "./api-keys.service.ts";
import { authGuard, principalForPath, requirePermission } from "./auth.guard.ts";
import type { AuthParts } from "./auth.room.ts";

const ApiKey = t.Object({
  id: t.String(),
  name: t.String(),
  created_at: t.String(),
  last_used_at: t.Nullable(t.String()),
  revoked_at: t.Nullable(t.String()),
});
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 500: ErrorBody };
const tags = ["api-keys"];

/** API key management (interface.md: JWT required for these three; decisions.md §12). */
export function apiKeyRoutes(room: AuthParts) {
  return (
    new Elysia({ prefix: "/api/v1/organizations/:org_id/api-keys" })
      .use(authGuard(room.auth))
      // derive, like the guard: roles are checked before the body is validated.
      .derive(({ principal, params }) => {
        const scoped = principalForPath(
          room.auth,
          principal,
          (params as { org_id: string }).org_id,
        );
        requirePermission(scoped, "manage_api_keys");
        return { scoped };
      })
      .post(
        "/",
        ({ scoped, body, set }) => {
          const name = assertCanCreateApiKey(
            scoped,
            (body as { name?: unknown } | null)?.name,
            room.apiKeys.plans,
          );
          const created = createApiKey(
            { organizationId: scoped.organizationId, name, createdBy: scoped.userId },
            room.apiKeys,
          );
          set.status = 201;
          return created;
        },
        {
          response: { 201: t.Object({ ...ApiKey.properties, key: t.String() }), ...errors },
          detail: {
            tags,
            summary: "Create an API key (shown once; Team and Enterprise plans)",
            description:
              'Needs a login token (an API key gets 403 `jwt_required`). Without `name`: 400 `{error: "name is required"}` (interface.md); on a plan without keys: 403.',
            // Documented only: the body is checked by hand for the contract's 400 (not a 422).
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["name"],
                    properties: { name: { type: "string", description: "What the key is for." } },
                  },
                  example: { name: "ci" },
                },
              },
            },
          },
        },
      )
      .get("/", ({ scoped }) => listApiKeys(scoped.organizationId, room.apiKeys), {
        response: { 200: t.Array(ApiKey), ...errors },
        detail: { tags, summary: "List API keys (never the key itself)" },
      })
      .delete(
        "/:key_id",
        ({ scoped, params }) =>
          revokeApiKey(
            { organizationId: scoped.organizationId, apiKeyId: params.key_id },
            room.apiKeys,
          ),
        {
          response: { 200: t.Object({ message: t.String() }), ...errors },
          detail: { tags, summary: "Revoke an API key: it stops working at once" },
        },
      )
  );
}
