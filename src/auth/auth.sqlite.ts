import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { ApiKeyEvent } from "./api-keys.ports.ts";
import { type AuthRepo, createAuthRepo } from "./auth.repo.ts";
import type { AuthStore, MemberRefusal, MemberView } from "./auth.store.ts";

export interface AuthSqliteOptions {
  /** Hears key events inside the transaction of their cause (the alerts room writes its rows there). */
  keyEvents?: (tx: TxHandle, event: ApiKeyEvent) => void;
}

/**
 * The auth room's store over SQLite: the repo's synchronous statements and transactions, each
 * method answered as a promise. Nothing waits inside a transaction.
 */
export function createAuthSqliteStore(db: Db, options: AuthSqliteOptions = {}): AuthStore {
  const repo = createAuthRepo(db);
  const { keyEvents } = options;

  const findMember = (organizationId: string, userId: string) =>
    repo.membersOf(organizationId).find((m) => m.userId === userId);
  const isLastOwner = (organizationId: string, member: MemberView) =>
    member.role === "owner" && repo.countOwners(organizationId) <= 1;

  return {
    countUsers: async () => repo.countUsers(),
    userById: async (id) => repo.userById(id),
    userByEmailKey: async (key) => repo.userByEmailKey(key),
    listUsers: async () => repo.listUsers(),
    setPassword: async (userId, hash, updatedAt) => void repo.setPassword(userId, hash, updatedAt),

    organizationById: async (id) => repo.organizationById(id),
    organizationByIdOrName: async (idOrName) => organizationByIdOrName(repo, idOrName),
    listOrganizations: async () => repo.listOrganizations(),
    renameOrganization: async (id, name, updatedAt) => {
      repo.renameOrganization(id, name, updatedAt);
      return repo.organizationById(id);
    },
    setPlan: async (id, plan, updatedAt) => void repo.setPlan(id, plan, updatedAt),

    insertAccount: async (rows) =>
      repo.transaction(() => {
        if (rows.onlyFirstUser && repo.countUsers() > 0) return "registration_closed";
        if (repo.userByEmailKey(rows.user.emailKey)) return "email_taken";
        const existing = rows.join === null ? undefined : organizationByIdOrName(repo, rows.join);
        if (existing === "ambiguous") return "organization_ambiguous";
        repo.insertUser(rows.user);
        const organization = existing ?? {
          ...rows.organization,
          plan: repo.countOrganizations() === 0 ? rows.plan.first : rows.plan.later,
          updatedAt: rows.organization.createdAt,
        };
        if (!existing) repo.insertOrganization(organization);
        const role = existing ? rows.role : "owner";
        repo.insertMembership({
          organizationId: organization.id,
          userId: rows.user.id,
          role,
          createdAt: rows.user.createdAt,
        });
        return { user: rows.user, organization, role };
      }),
    membership: async (userId, organizationId) => repo.membership(userId, organizationId),
    membershipsOf: async (userId) => repo.membershipsOf(userId),
    membersOf: async (organizationId) => repo.membersOf(organizationId),
    addMember: async (member) =>
      repo.transaction(() => {
        let user = repo.userByEmailKey(member.emailKey);
        if (!user) {
          if (!member.newUser) return "no_user";
          user = member.newUser;
          repo.insertUser(user);
        }
        if (repo.membership(user.id, member.organizationId)) return "already_member";
        const { organizationId, role, createdAt } = member;
        repo.insertMembership({ organizationId, userId: user.id, role, createdAt });
        return { userId: user.id, email: user.email, role, createdAt };
      }),
    changeRole: async (organizationId, userId, role) =>
      repo.transaction((): MemberView | MemberRefusal => {
        const member = findMember(organizationId, userId);
        if (!member) return "not_found";
        if (role !== "owner" && isLastOwner(organizationId, member)) return "last_owner";
        repo.setRole(organizationId, userId, role);
        return { ...member, role };
      }),
    removeMember: async (organizationId, userId) =>
      repo.transaction((): "removed" | MemberRefusal => {
        const member = findMember(organizationId, userId);
        if (!member) return "not_found";
        if (isLastOwner(organizationId, member)) return "last_owner";
        repo.removeMembership(organizationId, userId);
        return "removed";
      }),

    insertApiKey: async (row, event) => {
      // Without listeners (the CLI) the key is one INSERT, as before there were key events.
      if (!keyEvents) return void repo.insertApiKey(row);
      db.tx((tx) => {
        repo.insertApiKey(row);
        keyEvents(tx, event);
      });
    },
    activeKeyByHash: async (hash) => repo.activeKeyByHash(hash),
    listApiKeys: async (organizationId) => repo.listApiKeys(organizationId),
    findApiKey: async (organizationId, id) => repo.findApiKey(organizationId, id),
    keysExpiringBetween: async (from, until, limit) => repo.keysExpiringBetween(from, until, limit),
    revokeApiKey: async (organizationId, id, revokedAt, event) =>
      db.tx((tx) => {
        const row = repo.revokeApiKey(organizationId, id, revokedAt);
        if (row) keyEvents?.(tx, event(row));
        return row;
      }),
    announceKeyEvent: async (event) => {
      if (keyEvents) db.tx((tx) => keyEvents(tx, event));
    },
    usageDaysSince: async (apiKeyId, since) => repo.usageDaysSince(apiKeyId, since),
    writeApiKeyUsage: async (batch, keepSince) => repo.writeApiKeyUsage(batch, keepSince),
  };
}

function organizationByIdOrName(repo: AuthRepo, idOrName: string) {
  const byId = repo.organizationById(idOrName);
  if (byId) return byId;
  const byName = repo.organizationsByName(idOrName);
  return byName.length > 1 ? "ambiguous" : byName[0];
}
