import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import { hashPassword } from "./accounts.service.ts";
import { authErrors } from "./auth.errors.ts";
import { emailKey, type Role } from "./auth.model.ts";
import type { AuthRepo, MemberView, UserRow } from "./auth.repo.ts";
import { assertValid, emailProblem, passwordProblem, roleProblem } from "./auth.validate.ts";

export interface MembersDeps {
  repo: AuthRepo;
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

export const listMembers = (organizationId: string, deps: Pick<MembersDeps, "repo">) =>
  deps.repo.membersOf(organizationId).map(publicMember);

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
  let user = deps.repo.userByEmailKey(emailKey(email));
  const passwordHash = user ? null : await newUserPassword(input.password);
  const now = isoAt(deps.clock.now());
  return deps.repo.transaction(() => {
    user ??= deps.repo.userByEmailKey(emailKey(email));
    if (!user) {
      user = newUser(email, passwordHash as string, now, deps.ids.uuid());
      deps.repo.insertUser(user);
    }
    if (deps.repo.membership(user.id, input.organizationId)) throw authErrors.alreadyMember();
    const role = input.role as Role;
    deps.repo.insertMembership({
      organizationId: input.organizationId,
      userId: user.id,
      role,
      createdAt: now,
    });
    return publicMember({ userId: user.id, email: user.email, role, createdAt: now });
  });
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
export function changeRole(
  input: { organizationId: string; userId: string; role: unknown },
  deps: Pick<MembersDeps, "repo" | "onChanged">,
) {
  assertValid({ role: roleProblem(input.role) });
  const changed = deps.repo.transaction(() => {
    const member = findMember(input.organizationId, input.userId, deps.repo);
    if (member.role === "owner" && input.role !== "owner")
      assertNotLastOwner(input.organizationId, deps.repo);
    deps.repo.setRole(input.organizationId, input.userId, input.role as Role);
    return publicMember({ ...member, role: input.role as Role });
  });
  deps.onChanged(input.userId, input.organizationId);
  return changed;
}

/** Removes a member; the last owner cannot be removed (422). */
export function removeMember(
  input: { organizationId: string; userId: string },
  deps: Pick<MembersDeps, "repo" | "onChanged">,
): void {
  deps.repo.transaction(() => {
    const member = findMember(input.organizationId, input.userId, deps.repo);
    if (member.role === "owner") assertNotLastOwner(input.organizationId, deps.repo);
    deps.repo.removeMembership(input.organizationId, input.userId);
  });
  deps.onChanged(input.userId, input.organizationId);
}

function findMember(organizationId: string, userId: string, repo: AuthRepo): MemberView {
  const member = repo.membersOf(organizationId).find((m) => m.userId === userId);
  if (!member) throw authErrors.memberNotFound();
  return member;
}

function assertNotLastOwner(organizationId: string, repo: AuthRepo): void {
  if (repo.countOwners(organizationId) <= 1) {
    throw validationFailed({ role: ["an organization needs at least one owner"] });
  }
}

/** A member as answered. */
export type MemberJson = ReturnType<typeof publicMember>;
