import { Elysia, t } from "elysia";
import { documentedAnswer, ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
import { authGuard, principalForPath, requirePermission } from "./auth.guard.ts";
import type { AuthParts } from "./auth.room.ts";
import { addMember, changeRole, listMembers, removeMember } from "./members.service.ts";

const errors = {
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  422: ValidationErrorBody,
};
const tags = ["members"];

/** Members of an organization (decisions.md §2): the owner manages them; the last owner stays. */
export function memberRoutes(room: AuthParts) {
  const deps = {
    store: room.store,
    clock: room.accounts.clock,
    ids: room.accounts.ids,
    onChanged: room.onMembershipChanged,
  };
  return (
    new Elysia({ prefix: "/api/v1/organizations/:org_id/members" })
      .use(authGuard(room.auth, room.clientIp))
      // derive, like the guard: roles are checked before the body is validated.
      .derive(async ({ principal, params }) => {
        const scoped = await principalForPath(
          room.auth,
          principal,
          (params as { org_id: string }).org_id,
        );
        requirePermission(scoped, "manage");
        return { organizationId: scoped.organizationId };
      })
      .get("/", async ({ organizationId }) => ({ data: await listMembers(organizationId, deps) }), {
        response: { ...errors },
        detail: {
          tags,
          summary: "List members and their roles",
          ...documentedAnswer(200, "The members", {
            data: [{ user_id: "0196a4c2-…", email: "dev@example.com", role: "admin" }],
          }),
        },
      })
      .post(
        "/",
        async ({ organizationId, body, set }) => {
          const member = await addMember({ organizationId, ...body }, deps);
          set.status = 201;
          return { data: member };
        },
        {
          body: t.Object(
            {
              email: t.String(),
              role: t.String({ description: "owner, admin or member" }),
              password: t.Optional(
                t.String({ description: "Required when the email is new: creates the user." }),
              ),
            },
            { examples: [{ email: "dev@example.com", role: "admin", password: "dev-password" }] },
          ),
          response: { ...errors },
          detail: {
            tags,
            summary: "Add a member by email (a new email needs a password)",
            ...documentedAnswer(201, "The new member", {
              data: { user_id: "0196a4c2-…", email: "dev@example.com", role: "admin" },
            }),
          },
        },
      )
      .patch(
        "/:user_id",
        async ({ organizationId, params, body }) => ({
          data: await changeRole({ organizationId, userId: params.user_id, role: body.role }, deps),
        }),
        {
          body: t.Object({ role: t.String() }, { examples: [{ role: "member" }] }),
          response: { ...errors },
          detail: {
            tags,
            summary: "Change a member's role (the last owner cannot be demoted)",
            ...documentedAnswer(200, "The member with the new role", {
              data: { user_id: "0196a4c2-…", email: "dev@example.com", role: "admin" },
            }),
          },
        },
      )
      .delete(
        "/:user_id",
        async ({ organizationId, params, set }) => {
          await removeMember({ organizationId, userId: params.user_id }, deps);
          set.status = 204;
        },
        {
          response: { ...errors },
          detail: {
            tags,
            summary: "Remove a member (the last owner cannot be removed)",
            ...documentedAnswer(204, "Removed"),
          },
        },
      )
  );
}
