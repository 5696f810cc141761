import { Elysia, t } from "elysia";
import { ErrorBody, ValidationErrorBody } from "../http/http.openapi.ts";
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
    repo: room.repo,
    clock: room.accounts.clock,
    ids: room.accounts.ids,
    onChanged: room.onMembershipChanged,
  };
  return (
    new Elysia({ prefix: "/api/v1/organizations/:org_id/members" })
      .use(authGuard(room.auth))
      // derive, like the guard: roles are checked before the body is validated.
      .derive(({ principal, params }) => {
        const scoped = principalForPath(
          room.auth,
          principal,
          (params as { org_id: string }).org_id,
        );
        requirePermission(scoped, "manage");
        return { organizationId: scoped.organizationId };
      })
      .get("/", ({ organizationId }) => ({ data: listMembers(organizationId, deps) }), {
        response: { ...errors },
        detail: { tags, summary: "List members and their roles" },
      })
      .post(
        "/",
        async ({ organizationId, body, set }) => {
          const member = await addMember({ organizationId, ...body }, deps);
          set.status = 201;
          return { data: member };
        },
        {
          body: t.Object({
            email: t.String(),
            role: t.String(),
            password: t.Optional(
              t.String({ description: "Required when the email is new: creates the user." }),
            ),
          }),
          response: { ...errors },
          detail: { tags, summary: "Add a member by email (a new email needs a password)" },
        },
      )
      .patch(
        "/:user_id",
        ({ organizationId, params, body }) => ({
          data: changeRole({ organizationId, userId: params.user_id, role: body.role }, deps),
        }),
        {
          body: t.Object({ role: t.String() }),
          response: { ...errors },
          detail: { tags, summary: "Change a member's role (the last owner cannot be demoted)" },
        },
      )
      .delete(
        "/:user_id",
        ({ organizationId, params, set }) => {
          removeMember({ organizationId, userId: params.user_id }, deps);
          set.status = 204;
        },
        {
          response: { ...errors },
          detail: { tags, summary: "Remove a member (the last owner cannot be removed)" },
        },
      )
  );
}
