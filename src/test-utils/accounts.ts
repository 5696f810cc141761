import { createAccount } from "../auth/accounts.service.ts";
import { createApiKey } from "../auth/api-keys.service.ts";
import { createApiKeyUsage } from "../auth/api-keys.usage.ts";
import type { Plan, Role } from "../auth/auth.model.ts";
import { createAuthPostgresStore } from "../auth/auth.postgres.ts";
import { createAuthService } from "../auth/auth.service.ts";
import { createAuthSqliteStore } from "../auth/auth.sqlite.ts";
import type { AuthStore } from "../auth/auth.store.ts";
import type { TestServer } from "./test-server.ts";

export interface TestAccount {
  userId: string;
  organizationId: string;
  email: string;
  password: string;
  /** A login token (JWT) acting in `organizationId`. */
  token: string;
  /** `{authorization: "Bearer <jwt>"}` */
  headers: Record<string, string>;
  /** A fresh `svc_` key of the organization, whatever its plan (made directly, not through the API). */
  createApiKey(name?: string): Promise<string>;
  /** Another user in the same organization with `role`. */
  addMember(role: Role): Promise<TestAccount>;
}

let counter = 0;

/** The auth store of whichever database the test server keeps its data in. */
export function authStoreOf(
  server: Pick<TestServer, "deps"> & Partial<Pick<TestServer, "postgres">>,
): AuthStore {
  return server.postgres
    ? createAuthPostgresStore(server.postgres)
    : createAuthSqliteStore(server.deps.db);
}

/**
 * A user and a new organization (the user is its owner) in a test server's database, with a
 * login token signed by that server. Defaults to the `team` plan.
 */
export async function signUp(
  server: Pick<TestServer, "deps"> & Partial<Pick<TestServer, "postgres">>,
  options: {
    plan?: Plan;
    email?: string;
    orgName?: string;
    organizationId?: string;
    role?: Role;
  } = {},
): Promise<TestAccount> {
  const { deps } = server;
  const store = authStoreOf(server);
  const auth = createAuthService({
    store,
    clock: deps.clock,
    secretKey: deps.secretKey,
    jwtTtlMs: deps.config.jwt_ttl,
    plans: deps.config.plans,
    usage: createApiKeyUsage(() => {}),
  });
  counter += 1;
  const email = options.email ?? `user${counter}-${deps.ids.base62(6)}@example.test`;
  const password = "correct horse battery";
  const { user, organization } = await createAccount(
    {
      email,
      password,
      organization: options.organizationId ?? options.orgName ?? `Org ${counter}`,
      plan: options.plan ?? "team",
      role: options.role,
    },
    {
      store,
      clock: deps.clock,
      ids: deps.ids,
      auth,
      registration: "open",
      defaultPlan: "free",
      plans: deps.config.plans,
    },
  );
  const { token } = auth.issueToken(user, organization.id);
  const account: TestAccount = {
    userId: user.id,
    organizationId: organization.id,
    email,
    password,
    token,
    headers: { authorization: `Bearer ${token}` },
    async createApiKey(name = "test key") {
      const created = await createApiKey(
        { organizationId: organization.id, name, createdBy: user.id },
        { store, clock: deps.clock, ids: deps.ids, logger: deps.logger },
      );
      return created.key;
    },
    addMember: (role) => signUp(server, { organizationId: organization.id, role }),
  };
  return account;
}
