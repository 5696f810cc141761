import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../db/db.open.ts";
import { createApiKeysRepo } from "./api-keys.repo.ts";
import type { Plan, Role } from "./auth.model.ts";
import type { MembershipView, MemberView, OrganizationRow, UserRow } from "./auth.store.ts";
import { memberships, organizations, users } from "./auth.table.ts";

/** All SQLite SQL of the auth room. The two per-request lookups are prepared once. */
export function createAuthRepo(db: Db) {
  const orm = db.orm;
  const membershipOf = orm
    .select({ role: memberships.role, plan: organizations.plan })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(
      and(
        eq(memberships.userId, sql.placeholder("userId")),
        eq(memberships.organizationId, sql.placeholder("organizationId")),
      ),
    )
    .prepare();
  const userById = orm
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder("id")))
    .prepare();

  return {
    /** Runs `work` in one transaction (bun:sqlite transactions are synchronous). */
    transaction<T>(work: () => T): T {
      return db.sqlite.transaction(work)();
    },
    countUsers: () => orm.select({ n: count() }).from(users).get()?.n ?? 0,
    countOrganizations: () => orm.select({ n: count() }).from(organizations).get()?.n ?? 0,
    insertUser: (row: typeof users.$inferInsert) => orm.insert(users).values(row).run(),
    insertOrganization: (row: typeof organizations.$inferInsert) =>
      orm.insert(organizations).values(row).run(),
    insertMembership: (row: typeof memberships.$inferInsert) =>
      orm.insert(memberships).values(row).run(),
    userById: (id: string): UserRow | undefined => userById.get({ id }),
    userByEmailKey: (key: string): UserRow | undefined =>
      orm.select().from(users).where(eq(users.emailKey, key)).get(),
    setPassword: (userId: string, passwordHash: string, updatedAt: string) =>
      orm.update(users).set({ passwordHash, updatedAt }).where(eq(users.id, userId)).run(),
    listUsers: (): UserRow[] => orm.select().from(users).orderBy(asc(users.createdAt)).all(),
    organizationById: (id: string): OrganizationRow | undefined =>
      orm.select().from(organizations).where(eq(organizations.id, id)).get(),
    organizationsByName: (name: string): OrganizationRow[] =>
      orm.select().from(organizations).where(eq(organizations.name, name)).all(),
    listOrganizations: (): OrganizationRow[] =>
      orm.select().from(organizations).orderBy(asc(organizations.createdAt)).all(),
    renameOrganization: (id: string, name: string, updatedAt: string) =>
      orm.update(organizations).set({ name, updatedAt }).where(eq(organizations.id, id)).run(),
    setPlan: (id: string, plan: Plan, updatedAt: string) =>
      orm.update(organizations).set({ plan, updatedAt }).where(eq(organizations.id, id)).run(),
    membership: (userId: string, organizationId: string) =>
      membershipOf.get({ userId, organizationId }),
    /** The user's organizations, oldest membership first (the first is the default). */
    membershipsOf: (userId: string): MembershipView[] =>
      orm
        .select({
          organizationId: organizations.id,
          name: organizations.name,
          plan: organizations.plan,
          role: memberships.role,
        })
        .from(memberships)
        .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
        .where(eq(memberships.userId, userId))
        .orderBy(asc(memberships.createdAt), asc(organizations.id))
        .all(),
    membersOf: (organizationId: string): MemberView[] =>
      orm
        .select({
          userId: users.id,
          email: users.email,
          role: memberships.role,
          createdAt: memberships.createdAt,
        })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.organizationId, organizationId))
        .orderBy(asc(memberships.createdAt), asc(users.id))
        .all(),
    countOwners: (organizationId: string) =>
      orm
        .select({ n: count() })
        .from(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, "owner")))
        .get()?.n ?? 0,
    setRole: (organizationId: string, userId: string, role: Role) =>
      orm
        .update(memberships)
        .set({ role })
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
        .run(),
    removeMembership: (organizationId: string, userId: string) =>
      orm
        .delete(memberships)
        .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)))
        .run(),
    ...createApiKeysRepo(db),
  };
}

export type AuthRepo = ReturnType<typeof createAuthRepo>;
