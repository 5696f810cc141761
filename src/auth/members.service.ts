import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import { hashPassword } from "./accounts.service.ts";
import { authErrors } from "./auth.errors.ts";
import { emailKey, type Role } from "./auth.model.ts";
import type { AuthStore, MemberRefusal, MemberView, UserRow } from "./auth.store.ts";
import { assertValid, emailProblem, passwordProblem, roleProblem } from "./auth.validate.ts";

export interface MembersDeps {
  store: AuthStore;
  clock: Clock;
  ids: Ids;
  /** Told after a membership was removed or its role changed, so live sessions re-check. */
  onChanged: (userId: string, organizationId: string) => void;
}

export const publicMember = (m: MemberView) => ({
  user_id: m.userId,
  email: m.email,
  role: m.role,
  created_at: m.createdAt,
});

export const listMembers = async (organizationId: string, deps: Pick<MembersDeps, "store">) =>
  (await deps.store.membersOf(organizationId)).map(publicMember);

/**
 * Adds a member by email. An existing user is added as is; a new address needs a `password`
 * and creates the user (a self-hosted instance has no mail to send invitations with).
 */
export async function addMember(
  input: { organizationId: string; email: unknown; role: unknown; password?: unknown },
  deps: MembersDeps,
) {
  assertValid({ email: emailProblem(input.email), role: roleProblem(input.role) });
  const email = input.email as string;
  const known = await deps.store.userByEmailKey(emailKey(email));
  const passwordHash = known ? null : await newUserPassword(input.password);
  const now = isoAt(deps.clock.now());
  const added = await deps.store.addMember({
    organizationId: input.organizationId,
    emailKey: emailKey(email),
    newUser: passwordHash === null ? null : newUser(email, passwordHash, now, deps.ids.uuid()),
    role: input.role as Role,
    createdAt: now,
  });
  if (added === "already_member") throw authErrors.alreadyMember();
  // The user went away since the lookup: asked again, the address is a new one.
  if (added === "no_user") return addMember(input, deps);
  return publicMember(added);
}

async function newUserPassword(password: unknown): Promise<string> {
  if (password === undefined) {
    throw validationFailed({ password: ["is required to create a new user"] });
  }
  assertValid({ password: passwordProblem(password) });
  return hashPassword(password as string);
}

const newUser = (email: string, passwordHash: string, now: string, id: string): UserRow => ({
  id,
  email: email.trim(),
  emailKey: emailKey(email),
  passwordHash,
  createdAt: now,
  updatedAt: now,
});

/** Changes a role; the last owner cannot be demoted (422). */
export async function changeRole(
  input: { organizationId: string; userId: string; role: unknown },
  deps: Pick<MembersDeps, "store" | "onChanged">,
) {
  assertValid({ role: roleProblem(input.role) });
  const changed = await deps.store.changeRole(
    input.organizationId,
    input.userId,
    input.role as Role,
  );
  assertChanged(changed);
  deps.onChanged(input.userId, input.organizationId);
  return publicMember(changed);
}

/** Removes a member; the last owner cannot be removed (422). */
export async function removeMember(
  input: { organizationId: string; userId: string },
  deps: Pick<MembersDeps, "store" | "onChanged">,
): Promise<void> {
  assertChanged(await deps.store.removeMember(input.organizationId, input.userId));
  deps.onChanged(input.userId, input.organizationId);
}

function assertChanged<T>(outcome: T | MemberRefusal): asserts outcome is T {
  if (outcome === "not_found") throw authErrors.memberNotFound();
  if (outcome === "last_owner") {
    throw validationFailed({ role: ["an organization needs at least one owner"] });
  }
}

/** A member as answered. */
export type MemberJson = ReturnType<typeof publicMember>;
