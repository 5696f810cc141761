import type { SQL } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { type ApiKeysPostgresOptions, createApiKeysPostgresStore } from "./api-keys.postgres.ts";
import type { Plan, Role } from "./auth.model.ts";
import type {
  AuthStore,
  MemberRefusal,
  MemberView,
  NewAccountOutcome,
  OrganizationLookup,
  OrganizationRow,
  UserRow,
} from "./auth.store.ts";

type Row = Record<string, unknown>;

const toUser = (row: Row): UserRow => ({
  id: row.id as string,
  email: row.email as string,
  emailKey: row.email_key as string,
  passwordHash: row.password_hash as string,
  createdAt: row.created_at as string,
  updatedAt: row.updated_at as string,
});

const toOrganization = (row: Row): OrganizationRow => ({
  id: row.id as string,
  name: row.name as string,
  plan: row.plan as Plan,
  createdAt: row.created_at as string,
  updatedAt: row.updated_at as string,
});

const toMember = (row: Row): MemberView => ({
  userId: row.user_id as string,
  email: row.email as string,
  role: row.role as Role,
  createdAt: row.created_at as string,
});

/**
 * The auth room's store over PostgreSQL. Writes that check first take a lock in their
 * transaction, so several Weir nodes answer as one SQLite process would: account and member
 * creation take one advisory lock (the first-user and first-organization rules, one email once),
 * role changes lock the organization's memberships (it always keeps an owner).
 */
export function createAuthPostgresStore(
  pg: PostgresDb,
  options: ApiKeysPostgresOptions = {},
): AuthStore {
  const { sql } = pg;

  const userByEmailKey = async (q: SQL, key: string) => {
    const [row] = await q`SELECT * FROM users WHERE email_key = ${key}`;
    return row ? toUser(row) : undefined;
  };
  const membership = async (q: SQL, userId: string, organizationId: string) => {
    const [row] = await q`
      SELECT m.role, o.plan FROM memberships m JOIN organizations o ON o.id = m.organization_id
      WHERE m.user_id = ${userId} AND m.organization_id = ${organizationId}`;
    return row ? { role: row.role as Role, plan: row.plan as Plan } : undefined;
  };
  const insertUser = (q: SQL, user: UserRow) =>
    q`INSERT INTO users (id, email, email_key, password_hash, created_at, updated_at)
      VALUES (${user.id}, ${user.email}, ${user.emailKey}, ${user.passwordHash},
              ${user.createdAt}, ${user.updatedAt})`;
  const insertMembership = (
    q: SQL,
    m: { organizationId: string; userId: string; role: Role; createdAt: string },
  ) =>
    q`INSERT INTO memberships (organization_id, user_id, role, created_at)
      VALUES (${m.organizationId}, ${m.userId}, ${m.role}, ${m.createdAt})`;
  /** The organization's members, locked until the transaction ends. */
  const lockedMembers = async (q: SQL, organizationId: string) =>
    (
      await q`
        SELECT m.user_id, u.email, m.role, m.created_at
        FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = ${organizationId}
        ORDER BY m.created_at, u.id
        FOR UPDATE OF m`
    ).map(toMember) as MemberView[];
  const isLastOwner = (members: MemberView[], member: MemberView) =>
    member.role === "owner" && members.filter((m) => m.role === "owner").length <= 1;
  const lockAccounts = (q: SQL) => q`SELECT pg_advisory_xact_lock(hashtext('weir.accounts'))`;

  return {
    countUsers: async () => {
      const [row] = await sql`SELECT count(*)::int AS n FROM users`;
      return row.n as number;
    },
    userById: async (id) => {
      const [row] = await sql`SELECT * FROM users WHERE id = ${id}`;
      return row ? toUser(row) : undefined;
    },
    userByEmailKey: (key) => userByEmailKey(sql, key),
    listUsers: async () => (await sql`SELECT * FROM users ORDER BY created_at`).map(toUser),
    setPassword: async (userId, passwordHash, updatedAt) => {
      await sql`UPDATE users SET password_hash = ${passwordHash}, updated_at = ${updatedAt}
                WHERE id = ${userId}`;
    },

    organizationById: async (id) => {
      const [row] = await sql`SELECT * FROM organizations WHERE id = ${id}`;
      return row ? toOrganization(row) : undefined;
    },
    organizationByIdOrName: (idOrName) => organizationByIdOrName(sql, idOrName),
    listOrganizations: async () =>
      (await sql`SELECT * FROM organizations ORDER BY created_at`).map(toOrganization),
    renameOrganization: async (id, name, updatedAt) => {
      const [row] = await sql`UPDATE organizations SET name = ${name}, updated_at = ${updatedAt}
                              WHERE id = ${id} RETURNING *`;
      return row ? toOrganization(row) : undefined;
    },
    setPlan: async (id, plan, updatedAt) => {
      await sql`UPDATE organizations SET plan = ${plan}, updated_at = ${updatedAt} WHERE id = ${id}`;
    },

    insertAccount: (rows) =>
      sql.begin(async (tx): Promise<NewAccountOutcome> => {
        await lockAccounts(tx);
        if (rows.onlyFirstUser) {
          const [{ any }] = await tx`SELECT EXISTS (SELECT 1 FROM users) AS any`;
          if (any) return "registration_closed";
        }
        if (await userByEmailKey(tx, rows.user.emailKey)) return "email_taken";
        const existing =
          rows.join === null ? undefined : await organizationByIdOrName(tx, rows.join);
        if (existing === "ambiguous") return "organization_ambiguous";
        await insertUser(tx, rows.user);
        let organization = existing;
        if (!organization) {
          const [{ any }] = await tx`SELECT EXISTS (SELECT 1 FROM organizations) AS any`;
          const { id, name, createdAt } = rows.organization;
          organization = {
            id,
            name,
            plan: any ? rows.plan.later : rows.plan.first,
            createdAt,
            updatedAt: createdAt,
          };
          await tx`INSERT INTO organizations (id, name, plan, created_at, updated_at)
                   VALUES (${id}, ${name}, ${organization.plan}, ${createdAt}, ${createdAt})`;
        }
        const role = existing ? rows.role : "owner";
        await insertMembership(tx, {
          organizationId: organization.id,
          userId: rows.user.id,
          role,
          createdAt: rows.user.createdAt,
        });
        return { user: rows.user, organization, role };
      }),
    membership: (userId, organizationId) => membership(sql, userId, organizationId),
    membershipsOf: async (userId) =>
      (
        await sql`
          SELECT o.id, o.name, o.plan, m.role
          FROM memberships m JOIN organizations o ON o.id = m.organization_id
          WHERE m.user_id = ${userId}
          ORDER BY m.created_at, o.id`
      ).map((row: Row) => ({
        organizationId: row.id as string,
        name: row.name as string,
        plan: row.plan as Plan,
        role: row.role as Role,
      })),
    membersOf: async (organizationId) =>
      (
        await sql`
          SELECT m.user_id, u.email, m.role, m.created_at
          FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.organization_id = ${organizationId}
          ORDER BY m.created_at, u.id`
      ).map(toMember),
    addMember: (member) =>
      sql.begin(async (tx) => {
        await lockAccounts(tx);
        let user = await userByEmailKey(tx, member.emailKey);
        if (!user) {
          if (!member.newUser) return "no_user";
          user = member.newUser;
          await insertUser(tx, user);
        }
        if (await membership(tx, user.id, member.organizationId)) return "already_member";
        const { organizationId, role, createdAt } = member;
        await insertMembership(tx, { organizationId, userId: user.id, role, createdAt });
        return { userId: user.id, email: user.email, role, createdAt };
      }),
    changeRole: (organizationId, userId, role) =>
      sql.begin(async (tx): Promise<MemberView | MemberRefusal> => {
        const members = await lockedMembers(tx, organizationId);
        const member = members.find((m) => m.userId === userId);
        if (!member) return "not_found";
        if (role !== "owner" && isLastOwner(members, member)) return "last_owner";
        await tx`UPDATE memberships SET role = ${role}
                 WHERE organization_id = ${organizationId} AND user_id = ${userId}`;
        return { ...member, role };
      }),
    removeMember: (organizationId, userId) =>
      sql.begin(async (tx): Promise<"removed" | MemberRefusal> => {
        const members = await lockedMembers(tx, organizationId);
        const member = members.find((m) => m.userId === userId);
        if (!member) return "not_found";
        if (isLastOwner(members, member)) return "last_owner";
        await tx`DELETE FROM memberships
                 WHERE organization_id = ${organizationId} AND user_id = ${userId}`;
        return "removed";
      }),

    ...createApiKeysPostgresStore(pg, options),
  };
}

async function organizationByIdOrName(q: SQL, idOrName: string): Promise<OrganizationLookup> {
  const [byId] = await q`SELECT * FROM organizations WHERE id = ${idOrName}`;
  if (byId) return toOrganization(byId);
  const byName = await q`SELECT * FROM organizations WHERE name = ${idOrName} LIMIT 2`;
  if (byName.length > 1) return "ambiguous";
  return byName[0] ? toOrganization(byName[0]) : undefined;
}
