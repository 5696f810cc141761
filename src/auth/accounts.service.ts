import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { PlanTable } from "../shared/plans.ts";
import { authErrors } from "./auth.errors.ts";
import { emailKey, type Plan, type Role } from "./auth.model.ts";
import type { AuthRepo, OrganizationRow, UserRow } from "./auth.repo.ts";
import type { AuthService } from "./auth.service.ts";
import {
  assertValid,
  emailProblem,
  nameProblem,
  passwordProblem,
  planProblem,
  roleProblem,
} from "./auth.validate.ts";

export interface AccountsDeps {
  repo: AuthRepo;
  clock: Clock;
  ids: Ids;
  auth: AuthService;
  registration: "open" | "closed";
  defaultPlan: Plan;
  plans: PlanTable;
}

export interface NewAccount {
  email: string;
  password: string;
  /** A new organization's name, or (CLI) an existing organization's id or name. */
  organization: string;
  role?: Role;
  plan?: Plan;
}

/** A user as the API shows it: never the password hash. */
export const publicUser = (user: UserRow) => ({
  id: user.id,
  email: user.email,
  created_at: user.createdAt,
});

export const publicOrganization = (org: OrganizationRow) => ({
  id: org.id,
  name: org.name,
  plan: org.plan,
  created_at: org.createdAt,
});

/** Hashes with argon2id (Bun.password's default algorithm). */
export const hashPassword = (password: string) =>
  Bun.password.hash(password, { algorithm: "argon2id" });

/** Verified against when the email is unknown, so both failures take as long (no user probing). */
let dummyHash: Promise<string> | undefined;
const timingEqualizer = () => {
  dummyHash ??= hashPassword("weir-timing-equalizer");
  return dummyHash;
};

/**
 * First-run setup and open registration (decisions.md §2): the first organization gets
 * `enterprise`, later ones the default plan. Answers with a login token.
 */
export async function registerAccount(
  input: { email: unknown; password: unknown; organization_name: unknown },
  deps: AccountsDeps,
) {
  if (deps.registration !== "open" && deps.repo.countUsers() > 0) {
    throw authErrors.registrationClosed();
  }
  assertValid({
    email: emailProblem(input.email),
    password: passwordProblem(input.password),
    organization_name: nameProblem(input.organization_name),
  });
  const passwordHash = await hashPassword(input.password as string);
  const { user, organization } = deps.repo.transaction(() => {
    // Checked again inside the transaction: two first-run registrations may race.
    if (deps.registration !== "open" && deps.repo.countUsers() > 0) {
      throw authErrors.registrationClosed();
    }
    // Always a new organization: registering must never join an existing one by its name.
    return insertAccount(
      { email: input.email as string, organization: input.organization_name as string },
      passwordHash,
      deps,
      { joinExisting: false },
    );
  });
  const { token } = deps.auth.issueToken(user, organization.id);
  return { token, user: publicUser(user), organization: publicOrganization(organization) };
}

/** The operator's `weir admin create-user`: a new or existing organization, a chosen role and plan. */
export async function createAccount(input: NewAccount, deps: AccountsDeps) {
  assertValid({
    email: emailProblem(input.email),
    password: passwordProblem(input.password),
    org: nameProblem(input.organization),
    role: input.role === undefined ? null : roleProblem(input.role),
    plan: input.plan === undefined ? null : planProblem(input.plan),
  });
  const passwordHash = await hashPassword(input.password);
  return deps.repo.transaction(() =>
    insertAccount(input, passwordHash, deps, { joinExisting: true }),
  );
}

function insertAccount(
  input: Pick<NewAccount, "email" | "organization" | "role" | "plan">,
  passwordHash: string,
  deps: AccountsDeps,
  options: { joinExisting: boolean },
): { user: UserRow; organization: OrganizationRow; role: Role } {
  const now = isoAt(deps.clock.now());
  if (deps.repo.userByEmailKey(emailKey(input.email))) throw authErrors.emailTaken();
  const user: UserRow = {
    id: deps.ids.uuid(),
    email: input.email.trim(),
    emailKey: emailKey(input.email),
    passwordHash,
    createdAt: now,
    updatedAt: now,
  };
  deps.repo.insertUser(user);
  const existing = options.joinExisting
    ? findOrganization(deps.repo, input.organization)
    : undefined;
  const organization = existing ?? newOrganization(input, now, deps);
  const role: Role = existing ? (input.role ?? "member") : "owner";
  deps.repo.insertMembership({
    organizationId: organization.id,
    userId: user.id,
    role,
    createdAt: now,
  });
  return { user, organization, role };
}

function newOrganization(
  input: Pick<NewAccount, "organization" | "plan">,
  now: string,
  deps: AccountsDeps,
): OrganizationRow {
  const first = deps.repo.countOrganizations() === 0;
  const organization: OrganizationRow = {
    id: deps.ids.uuid(),
    name: input.organization.trim(),
    plan: input.plan ?? (first ? "enterprise" : deps.defaultPlan),
    createdAt: now,
    updatedAt: now,
  };
  deps.repo.insertOrganization(organization);
  return organization;
}

/** Finds an organization by id, or by its exact name when that name is unambiguous. */
export function findOrganization(repo: AuthRepo, idOrName: string): OrganizationRow | undefined {
  const byId = repo.organizationById(idOrName.trim());
  if (byId) return byId;
  const byName = repo.organizationsByName(idOrName.trim());
  if (byName.length > 1) {
    throw new Error(`several organizations are named "${idOrName}"; use the id`);
  }
  return byName[0];
}

/** Password login (decisions.md §2): one message for an unknown email and a wrong password. */
export async function login(input: { email: unknown; password: unknown }, deps: AccountsDeps) {
  const email = typeof input.email === "string" ? input.email : "";
  const password = typeof input.password === "string" ? input.password : "";
  const user = email ? deps.repo.userByEmailKey(emailKey(email)) : undefined;
  const hash = user?.passwordHash ?? (await timingEqualizer());
  const ok = password !== "" && (await Bun.password.verify(password, hash));
  if (!user || !ok) throw authErrors.invalidCredentials();
  const organizations = deps.repo.membershipsOf(user.id);
  const home = organizations[0];
  if (!home) throw authErrors.invalidCredentials();
  const { token, expiresAt } = deps.auth.issueToken(user, home.organizationId);
  return {
    token,
    expires_at: expiresAt,
    user: { id: user.id, email: user.email },
    organizations: organizations.map((m) => publicMembership(m, deps.plans)),
  };
}

/** An organization as its member sees it, with the effective quotas of its plan (weir.toml included). */
export const publicMembership = (
  m: { organizationId: string; name: string; role: Role; plan: Plan },
  plans: PlanTable,
) => ({ id: m.organizationId, name: m.name, role: m.role, plan: m.plan, limits: plans[m.plan] });

/** Sets a new password; earlier login tokens of the user stop working. */
export async function resetPassword(
  input: { email: string; password: string },
  deps: Pick<AccountsDeps, "repo" | "clock">,
): Promise<UserRow> {
  assertValid({ password: passwordProblem(input.password) });
  const user = deps.repo.userByEmailKey(emailKey(input.email));
  if (!user) throw authErrors.userNotFound();
  const hash = await hashPassword(input.password);
  deps.repo.setPassword(user.id, hash, isoAt(deps.clock.now()));
  return { ...user, passwordHash: hash };
}

/** An organization of the caller, with its role and plan quotas, as `/me` and login answer it. */
export type MembershipJson = ReturnType<typeof publicMembership>;

/** A user as answered (never the password hash). */
export type UserJson = ReturnType<typeof publicUser>;
