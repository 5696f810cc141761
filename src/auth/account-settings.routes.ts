import { Elysia, t } from "elysia";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import { changePassword, renameOrganization } from "./account-settings.service.ts";
import { authErrors } from "./auth.errors.ts";
import { authGuard, principalForPath, requirePermission } from "./auth.guard.ts";
import type { AuthParts } from "./auth.room.ts";
import { limitPerClient, rememberUiSession } from "./auth.routes.ts";

const errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };

/** A user's own password, and an organization's name (decisions.md §2 roles: owner only). */
export function accountSettingsRoutes(room: AuthParts) {
  return new Elysia()
    .use(authGuard(room.auth, room.clientIp))
    .post(
      "/api/v1/me/password",
      async ({ principal, body, request, server, set }) => {
        // A person's password: an API key has none to change.
        if (principal.authMethod !== "jwt" || !principal.userId) throw authErrors.jwtRequired();
        // Guessing the current password is guessing a login: the same per-client budget.
        limitPerClient(room.loginLimiter, room, request, server, set);
        const answer = await changePassword(
          {
            userId: principal.userId,
            currentPassword: body.current_password,
            newPassword: body.new_password,
          },
          room.accounts,
        );
        rememberUiSession(room, request, set, answer.token);
        return answer;
      },
      {
        body: t.Object({ current_password: t.String(), new_password: t.String() }),
        response: {
          200: t.Object({ token: t.String(), expires_at: t.String() }),
          429: ErrorBody,
          ...errors,
        },
        detail: {
          tags: ["accounts"],
          summary:
            "Change your password: every other session ends; the answer carries a new login token",
        },
      },
    )
    .use(organizationRoutes(room));
}

function organizationRoutes(room: AuthParts) {
  return (
    new Elysia({ prefix: "/api/v1/organizations/:org_id" })
      .use(authGuard(room.auth, room.clientIp))
      // derive, like the guard: the role is checked before the body is validated.
      .derive(async ({ principal, params }) => {
        const scoped = await principalForPath(
          room.auth,
          principal,
          (params as { org_id: string }).org_id,
        );
        requirePermission(scoped, "manage");
        return { organizationId: scoped.organizationId };
      })
      .patch(
        "/",
        async ({ organizationId, body }) => ({
          data: await renameOrganization({ organizationId, name: body.name }, room.accounts),
        }),
        {
          body: t.Object({ name: t.String() }),
          response: {
            200: t.Object({
              data: t.Object({
                id: t.String(),
                name: t.String(),
                plan: t.String(),
                created_at: t.String(),
              }),
            }),
            ...errors,
          },
          detail: { tags: ["members"], summary: "Rename an organization (owner)" },
        },
      )
  );
}
