import { isoAt } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import { type AccountsDeps, hashPassword, publicOrganization } from "./accounts.service.ts";
import { authErrors } from "./auth.errors.ts";
import { assertValid, nameProblem, passwordProblem } from "./auth.validate.ts";

/**
 * A user changes their own password, proving the current one. Like a reset, it ends every
 * earlier session of the user (login tokens carry the password's version); the caller gets a
 * fresh token so the session it changed the password from goes on.
 */
export async function changePassword(
  input: { userId: string; currentPassword: unknown; newPassword: unknown },
  deps: AccountsDeps,
): Promise<{ token: string; expires_at: string }> {
  assertValid({ new_password: passwordProblem(input.newPassword) });
  const user = await deps.store.userById(input.userId);
  if (!user) throw authErrors.unauthorized();
  const current = typeof input.currentPassword === "string" ? input.currentPassword : "";
  if (!current || !(await Bun.password.verify(current, user.passwordHash))) {
    throw validationFailed({ current_password: ["is not the current password"] });
  }
  const passwordHash = await hashPassword(input.newPassword as string);
  await deps.store.setPassword(user.id, passwordHash, isoAt(deps.clock.now()));
  const [home] = await deps.store.membershipsOf(user.id);
  const { token, expiresAt } = deps.auth.issueToken(
    { ...user, passwordHash },
    home?.organizationId ?? "",
  );
  return { token, expires_at: expiresAt };
}

/** Renames an organization (its owner's call; the route checks the role). */
export async function renameOrganization(
  input: { organizationId: string; name: unknown },
  deps: Pick<AccountsDeps, "store" | "clock">,
) {
  assertValid({ name: nameProblem(input.name) });
  const name = (input.name as string).trim();
  const org = await deps.store.renameOrganization(
    input.organizationId,
    name,
    isoAt(deps.clock.now()),
  );
  if (!org) throw authErrors.organizationNotFound();
  return publicOrganization(org);
}
