import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { PlanTable } from "../shared/plans.ts";
import { authErrors } from "./auth.errors.ts";
import { emailKey, type Plan, type Role } from "./auth.model.ts";
import type { AuthService } from "./auth.service.ts";
import type { AuthStore, OrganizationRow, UserRow } from "./auth.store.ts";
import {
  assertValid,
  emailProblem,
  nameProblem,
  passwordProblem,
  planProblem,
  roleProblem,
} from "./auth.validate.ts";

export interface AccountsDeps {
  store: AuthStore;
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
  if (deps.registration !== "open" && (await deps.store.countUsers()) > 0) {
    throw authErrors.registrationClosed();
  }
  assertValid({
    email: emailProblem(input.email),
    password: passwordProblem(input.password),
    organization_name: nameProblem(input.organization_name),
  });
  const passwordHash = await hashPassword(input.password as string);
  // Checked again as the account is written: two first-run registrations may race. Always a
  // new organization: registering must never join an existing one by its name.
  const { user, organization } = await insertAccount(
    { email: input.email as string, organization: input.organization_name as string },
    passwordHash,
    deps,
    { joinExisting: false, onlyFirstUser: deps.registration !== "open" },
  );
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
  return insertAccount(input, passwordHash, deps, { joinExisting: true, onlyFirstUser: false });
}

async function insertAccount(
  input: Pick<NewAccount, "email" | "organization" | "role" | "plan">,
  passwordHash: string,
  deps: AccountsDeps,
  options: { joinExisting: boolean; onlyFirstUser: boolean },
): Promise<{ user: UserRow; organization: OrganizationRow; role: Role }> {
  const now = isoAt(deps.clock.now());
  const name = input.organization.trim();
  const outcome = await deps.store.insertAccount({
    user: {
      id: deps.ids.uuid(),
      email: input.email.trim(),
      emailKey: emailKey(input.email),
      passwordHash,
      createdAt: now,
      updatedAt: now,
    },
    join: options.joinExisting ? name : null,
    organization: { id: deps.ids.uuid(), name, createdAt: now },
    plan: { first: input.plan ?? "enterprise", later: input.plan ?? deps.defaultPlan },
    role: input.role ?? "member",
    onlyFirstUser: options.onlyFirstUser,
  });
  if (outcome === "registration_closed") throw authErrors.registrationClosed();
  if (outcome === "email_taken") throw authErrors.emailTaken();
  if (outcome === "organization_ambiguous") throw ambiguousOrganization(name);
  return outcome;
}

const ambiguousOrganization = (name: string) =>
  new Error(`several organizations are named "${name}"; use the id`);

/** Finds an organization by id, or by its exact name when that name is unambiguous. */
export async function findOrganization(
  store: AuthStore,
  idOrName: string,
): Promise<OrganizationRow | undefined> {
  const found = await store.organizationByIdOrName(idOrName.trim());
  if (found === "ambiguous") throw ambiguousOrganization(idOrName);
  return found;
}

/** Password login (decisions.md §2): one message for an unknown email and a wrong password. */
export async function login(input: { email: unknown; password: unknown }, deps: AccountsDeps) {
  const email = typeof input.email === "string" ? input.email : "";
  const password = typeof input.password === "string" ? input.password : "";
  const user = email ? await deps.store.userByEmailKey(emailKey(email)) : undefined;
  const hash = user?.passwordHash ?? (await timingEqualizer());
  const ok = password !== "" && (await Bun.password.verify(password, hash));
  if (!user || !ok) throw authErrors.invalidCredentials();
  const organizations = await deps.store.membershipsOf(user.id);
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
  deps: Pick<AccountsDeps, "store" | "clock">,
): Promise<UserRow> {
  assertValid({ password: passwordProblem(input.password) });
  const user = await deps.store.userByEmailKey(emailKey(input.email));
  if (!user) throw authErrors.userNotFound();
  const hash = await hashPassword(input.password);
  await deps.store.setPassword(user.id, hash, isoAt(deps.clock.now()));
  return { ...user, passwordHash: hash };
}

/** An organization of the caller, with its role and plan quotas, as `/me` and login answer it. */
export type MembershipJson = ReturnType<typeof publicMembership>;

/** A user as answered (never the password hash). */
export type UserJson = ReturnType<typeof publicUser>;
