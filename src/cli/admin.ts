import type { Command } from "commander";
import { createAccount, findOrganization, resetPassword } from "../auth/accounts.service.ts";
import { createApiKey } from "../auth/api-keys.service.ts";
import { createApiKeyUsage } from "../auth/api-keys.usage.ts";
import { PLANS, type Plan, type Role } from "../auth/auth.model.ts";
import { createAuthService } from "../auth/auth.service.ts";
import { createLogger } from "../shared/logger.ts";
import { type AdminContext, passwordFrom, withAdminData } from "./admin.data.ts";
import { action, DATA_DIR_OPTION, DATABASE_OPTION, fail, printJson } from "./cli.common.ts";

interface Flags {
  dataDir?: string;
  database?: string;
  json?: boolean;
}

/** `weir admin …`: operator commands on the data dir, no running server needed (decisions.md §1). */
export function registerAdmin(program: Command): void {
  const admin = program
    .command("admin")
    .description("manage users, organizations, plans and API keys (data dir or --database)");
  const sub = (name: string, description: string) =>
    admin
      .command(name)
      .description(description)
      .option(...DATA_DIR_OPTION)
      .option(...DATABASE_OPTION)
      .option("--json", "print the result as JSON");

  sub("create-user", "create a user, and the organization when --org names a new one")
    .requiredOption("--email <email>", "the user's email")
    .option("--password <password>", "the user's password (at least 8 characters)")
    .option("--password-stdin", "read the password from the first line of stdin")
    .option("--org <id-or-name>", "organization: an existing one's id or name, or a new name")
    .option("--role <role>", "role in an existing organization: owner, admin or member")
    .option("--plan <plan>", `plan of a new organization: ${PLANS.join(", ")}`)
    .action(action(createUser));
  sub("set-plan", "change an organization's plan")
    .requiredOption("--org <id-or-name>", "the organization's id or name")
    .argument("<plan>", PLANS.join(" | "))
    .action(action(setPlan));
  sub("create-api-key", "create an API key for an organization (printed once)")
    .requiredOption("--org <id-or-name>", "the organization's id or name")
    .requiredOption("--name <name>", "what the key is for")
    .action(action(createKey));
  sub("list-orgs", "list organizations with their plan and member count").action(action(listOrgs));
  sub("list-users", "list users and their organizations").action(action(listUsers));
  sub("reset-password", "set a new password for a user (ends their sessions)")
    .requiredOption("--email <email>", "the user's email")
    .option("--password <password>", "the new password")
    .option("--password-stdin", "read the new password from the first line of stdin")
    .action(action(resetUserPassword));
}

type CreateUserFlags = Flags & {
  email: string;
  password?: string;
  passwordStdin?: boolean;
  org?: string;
  role?: string;
  plan?: string;
};

async function createUser(flags: CreateUserFlags) {
  const password = await passwordFrom(flags);
  await withAdminData(
    flags,
    async (ctx) => {
      const organization = flags.org ?? `${flags.email.split("@")[0]}'s organization`;
      const existing = flags.org ? await findOrganization(ctx.store, flags.org) : undefined;
      if (existing && flags.plan) fail("--plan applies to a new organization; use set-plan");
      if (!existing && flags.role && flags.role !== "owner") {
        fail(
          "the first user of a new organization is its owner; --role applies to an existing one",
        );
      }
      const result = await createAccount(
        {
          email: flags.email,
          password,
          organization,
          role: flags.role as Role | undefined,
          plan: flags.plan as Plan | undefined,
        },
        accountsDeps(ctx),
      );
      const out = {
        user_id: result.user.id,
        email: result.user.email,
        organization_id: result.organization.id,
        organization: result.organization.name,
        role: result.role,
        plan: result.organization.plan,
      };
      if (flags.json) return printJson(out);
      console.log(`created user ${out.email} (${out.user_id})`);
      console.log(
        `organization ${out.organization} (${out.organization_id}), role ${out.role}, plan ${out.plan}`,
      );
    },
    { mayCreate: true },
  );
}

function accountsDeps(ctx: AdminContext) {
  const auth = createAuthService({
    store: ctx.store,
    clock: ctx.clock,
    secretKey: new Uint8Array(32),
    jwtTtlMs: ctx.config.jwt_ttl,
    plans: ctx.config.plans,
    usage: createApiKeyUsage(() => {}),
  });
  return {
    ...ctx,
    auth,
    registration: "open" as const,
    defaultPlan: ctx.config.default_plan,
    plans: ctx.config.plans,
  };
}

async function orgOrFail(ctx: AdminContext, idOrName: string) {
  try {
    return (await findOrganization(ctx.store, idOrName)) ?? fail(`no organization "${idOrName}"`);
  } catch (error) {
    return fail((error as Error).message);
  }
}

async function setPlan(plan: string, flags: Flags & { org: string }) {
  if (!PLANS.includes(plan as Plan)) fail(`plan must be one of ${PLANS.join(", ")}`);
  await withAdminData(flags, async (ctx) => {
    const org = await orgOrFail(ctx, flags.org);
    await ctx.store.setPlan(org.id, plan as Plan, new Date(ctx.clock.now()).toISOString());
    if (flags.json) return printJson({ organization_id: org.id, name: org.name, plan });
    console.log(`organization ${org.name} (${org.id}) is now on plan ${plan}`);
  });
}

async function createKey(flags: Flags & { org: string; name: string }) {
  await withAdminData(flags, async (ctx) => {
    const org = await orgOrFail(ctx, flags.org);
    if (!ctx.config.plans[org.plan].api_keys) {
      fail(`plan ${org.plan} has no API keys; weir admin set-plan --org ${org.id} team`);
    }
    if (flags.name.trim() === "") fail("name is required");
    const logger = createLogger({
      level: "error",
      write: (line) => process.stderr.write(`${line}\n`),
    });
    const key = await createApiKey(
      { organizationId: org.id, name: flags.name.trim(), createdBy: null },
      { ...ctx, logger },
    );
    if (flags.json) return printJson({ ...key, organization_id: org.id });
    console.log(key.key);
    console.error(`API key ${key.id} for ${org.name}: shown once, store it now.`);
  });
}

async function listOrgs(flags: Flags) {
  await withAdminData(flags, async (ctx) => {
    const orgs = [];
    for (const org of await ctx.store.listOrganizations()) {
      orgs.push({
        id: org.id,
        name: org.name,
        plan: org.plan,
        members: (await ctx.store.membersOf(org.id)).length,
        created_at: org.createdAt,
      });
    }
    if (flags.json) return printJson(orgs);
    for (const o of orgs)
      console.log(`${o.id}  ${o.plan.padEnd(10)}  ${o.members} member(s)  ${o.name}`);
    if (orgs.length === 0) console.log("no organizations yet");
  });
}

async function listUsers(flags: Flags) {
  await withAdminData(flags, async (ctx) => {
    const users = [];
    for (const user of await ctx.store.listUsers()) {
      const memberships = await ctx.store.membershipsOf(user.id);
      users.push({
        id: user.id,
        email: user.email,
        created_at: user.createdAt,
        organizations: memberships.map((m) => ({
          id: m.organizationId,
          name: m.name,
          role: m.role,
        })),
      });
    }
    if (flags.json) return printJson(users);
    for (const u of users) {
      const orgs = u.organizations.map((o) => `${o.name} (${o.role})`).join(", ");
      console.log(`${u.id}  ${u.email}  ${orgs}`);
    }
    if (users.length === 0) console.log("no users yet");
  });
}

async function resetUserPassword(
  flags: Flags & { email: string; password?: string; passwordStdin?: boolean },
) {
  const password = await passwordFrom(flags);
  await withAdminData(flags, async (ctx) => {
    const user = await resetPassword({ email: flags.email, password }, ctx);
    if (flags.json) return printJson({ user_id: user.id, email: user.email, password_reset: true });
    console.log(`password of ${user.email} reset; earlier sessions have ended`);
  });
}
