import { Elysia, t } from "elysia";
import { ErrorBody } from "../http/http.openapi.ts";
import { validationFailed } from "../shared/errors.ts";
import {
  apiKeyUsage,
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
  role: t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member")]),
  expires_at: t.Nullable(t.String()),
  rate_limit_per_minute: t.Nullable(t.Integer()),
  allowed_ips: t.Nullable(t.Array(t.String())),
});
const Usage = t.Object({
  data: t.Object({
    days: t.Array(t.Object({ date: t.String(), requests: t.Integer(), errors: t.Integer() })),
    last_ip: t.Nullable(t.String()),
    last_user_agent: t.Nullable(t.String()),
  }),
});
const errors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  422: ErrorBody,
  500: ErrorBody,
};
const MAX_EXPIRING_DAYS = 3650;

/** `?expiring_within_days=N` (N > 0, at most ten years), or undefined when absent. */
function expiringWithinDays(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const days = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(days) || days <= 0 || days > MAX_EXPIRING_DAYS) {
    throw validationFailed({
      expiring_within_days: [`must be a number of days above 0 and at most ${MAX_EXPIRING_DAYS}`],
    });
  }
  return days;
}
const tags = ["api-keys"];

/** API key management (interface.md: JWT required for these three; decisions.md §12). */
export function apiKeyRoutes(room: AuthParts) {
  return (
    new Elysia({ prefix: "/api/v1/organizations/:org_id/api-keys" })
      .use(authGuard(room.auth, room.clientIp))
      // derive, like the guard: roles are checked before the body is validated.
      .derive(async ({ principal, params }) => {
        const scoped = await principalForPath(
          room.auth,
          principal,
          (params as { org_id: string }).org_id,
        );
        requirePermission(scoped, "manage_api_keys");
        return { scoped };
      })
      .post(
        "/",
        async ({ scoped, body, set }) => {
          const { name, limits } = assertCanCreateApiKey(scoped, body, room.apiKeys);
          const created = await createApiKey(
            { organizationId: scoped.organizationId, name, createdBy: scoped.userId, limits },
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
              'Needs a login token (an API key gets 403 `jwt_required`). Without `name`: 400 `{error: "name is required"}` (interface.md); on a plan without keys: 403. `role` (default owner), `expires_at` (future ISO time), `rate_limit_per_minute` and `allowed_ips` (CIDRs) are optional; a bad one is a 422 naming it.',
            // Documented only: the body is checked by hand for the contract's 400 (not a 422).
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["name"],
                    properties: {
                      name: { type: "string", description: "What the key is for." },
                      role: { type: "string", enum: ["owner", "admin", "member"] },
                      expires_at: { type: "string", format: "date-time" },
                      rate_limit_per_minute: { type: "integer", minimum: 1 },
                      allowed_ips: { type: "array", items: { type: "string" } },
                    },
                  },
                  example: {
                    name: "dashboard",
                    role: "member",
                    expires_at: "2026-12-31T00:00:00Z",
                    allowed_ips: ["192.168.1.0/24"],
                  },
                },
              },
            },
          },
        },
      )
      .get(
        "/",
        ({ scoped, query }) =>
          listApiKeys(
            scoped.organizationId,
            room.apiKeys,
            expiringWithinDays((query as Record<string, string | undefined>).expiring_within_days),
          ),
        {
          response: { 200: t.Array(ApiKey), ...errors },
          detail: {
            tags,
            summary: "List API keys (never the key itself)",
            description:
              "`?expiring_within_days=N`: only active keys that expire within N days from now.",
          },
        },
      )
      .get(
        "/:key_id/usage",
        ({ scoped, params }) =>
          apiKeyUsage(
            { organizationId: scoped.organizationId, apiKeyId: params.key_id },
            room.apiKeys,
          ),
        {
          response: { 200: Usage, ...errors },
          detail: {
            tags,
            summary: "A key's requests and 4xx answers per UTC day (30 days), and its last client",
          },
        },
      )
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
