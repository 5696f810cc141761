import type { ApiKeyLimits } from "./api-keys.model.ts";
import type { ApiKeyEvent } from "./api-keys.ports.ts";
import type { UsageBatch } from "./api-keys.usage.ts";
import type { Plan, Role } from "./auth.model.ts";

export interface UserRow {
  id: string;
  email: string;
  emailKey: string;
  passwordHash: string;
  createdAt: string;
  updatedAt: string;
}

export interface OrganizationRow {
  id: string;
  name: string;
  plan: Plan;
  createdAt: string;
  updatedAt: string;
}

export interface MembershipView {
  organizationId: string;
  name: string;
  plan: Plan;
  role: Role;
}

export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  createdAt: string;
}

/** A key as the API shows it: its limits decoded (the allowlist is JSON in its row). */
export interface ApiKeyRow {
  id: string;
  organizationId: string;
  name: string;
  keyHash: string;
  createdBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  role: Role;
  expiresAt: string | null;
  rateLimitPerMinute: number | null;
  allowedIps: string[] | null;
  lastIp: string | null;
  lastUserAgent: string | null;
}

export type NewApiKey = Omit<ApiKeyRow, "lastIp" | "lastUserAgent"> & ApiKeyLimits;

/** An active key with what the guard needs to act for its organization and to check its limits. */
export interface ActiveKey {
  id: string;
  organizationId: string;
  name: string;
  plan: Plan;
  role: Role;
  expiresAt: string | null;
  rateLimitPerMinute: number | null;
  /** The allowlist as stored (JSON), so the guard can cache its matcher by it. */
  allowedIps: string | null;
}

/**
 * A new account as one unit: the user, and either the organization `join` names (by id, or by a
 * name only one organization has) or a new one. Checked and written in one transaction.
 */
export interface NewAccountRows {
  user: UserRow;
  /** An existing organization's id or name to join; when none matches, `organization` is made. */
  join: string | null;
  organization: { id: string; name: string; createdAt: string };
  /** The new organization's plan: `first` when it is the first organization of the instance. */
  plan: { first: Plan; later: Plan };
  /** The role in an organization joined; the maker of a new organization is its owner. */
  role: Role;
  /** Refuse when any user exists already (first-run setup with registration closed). */
  onlyFirstUser: boolean;
}

export type NewAccountOutcome =
  | { user: UserRow; organization: OrganizationRow; role: Role }
  | "registration_closed"
  | "email_taken"
  | "organization_ambiguous";

export interface NewMember {
  organizationId: string;
  emailKey: string;
  /** The user to create when no user has the address; null: only an existing user may join. */
  newUser: UserRow | null;
  role: Role;
  createdAt: string;
}

export type NewMemberOutcome = MemberView | "already_member" | "no_user";

/** Why a member's change was refused: not a member, or the organization's last owner. */
export type MemberRefusal = "not_found" | "last_owner";

/** An organization found by id or name; "ambiguous" when several have the name. */
export type OrganizationLookup = OrganizationRow | undefined | "ambiguous";

/**
 * The auth room's storage: users, organizations, memberships, API keys and their usage. Every
 * method is a whole unit; the ones that check before they write run their own transaction.
 * SQLite (`auth.sqlite.ts`) and PostgreSQL (`auth.postgres.ts`) answer alike.
 */
export interface AuthStore {
  countUsers(): Promise<number>;
  userById(id: string): Promise<UserRow | undefined>;
  userByEmailKey(key: string): Promise<UserRow | undefined>;
  /** Every user, oldest first. */
  listUsers(): Promise<UserRow[]>;
  setPassword(userId: string, passwordHash: string, updatedAt: string): Promise<void>;

  organizationById(id: string): Promise<OrganizationRow | undefined>;
  /** By id, else by exact name when one organization has it. */
  organizationByIdOrName(idOrName: string): Promise<OrganizationLookup>;
  /** Every organization, oldest first. */
  listOrganizations(): Promise<OrganizationRow[]>;
  /** Renames; the organization as it is now, or undefined when there is none. */
  renameOrganization(
    id: string,
    name: string,
    updatedAt: string,
  ): Promise<OrganizationRow | undefined>;
  setPlan(id: string, plan: Plan, updatedAt: string): Promise<void>;

  insertAccount(rows: NewAccountRows): Promise<NewAccountOutcome>;
  membership(
    userId: string,
    organizationId: string,
  ): Promise<{ role: Role; plan: Plan } | undefined>;
  /** The user's organizations, oldest membership first (the first is the default). */
  membershipsOf(userId: string): Promise<MembershipView[]>;
  /** The organization's members, oldest membership first. */
  membersOf(organizationId: string): Promise<MemberView[]>;
  addMember(member: NewMember): Promise<NewMemberOutcome>;
  /** Sets a member's role; an organization keeps at least one owner. */
  changeRole(
    organizationId: string,
    userId: string,
    role: Role,
  ): Promise<MemberView | MemberRefusal>;
  /** Removes a member; an organization keeps at least one owner. */
  removeMember(organizationId: string, userId: string): Promise<"removed" | MemberRefusal>;

  /** Inserts a key and, in the same transaction, tells the key listeners `event`. */
  insertApiKey(row: NewApiKey, event: ApiKeyEvent): Promise<void>;
  activeKeyByHash(hash: string): Promise<ActiveKey | undefined>;
  /** The organization's keys, oldest first. */
  listApiKeys(organizationId: string): Promise<ApiKeyRow[]>;
  findApiKey(organizationId: string, id: string): Promise<ApiKeyRow | undefined>;
  /** Active keys of every organization whose expiry falls in (`from`, `until`], soonest first. */
  keysExpiringBetween(from: string, until: string, limit: number): Promise<ApiKeyRow[]>;
  /**
   * Revokes an active key of the organization and tells the key listeners in the same
   * transaction; the revoked row, or null when none was active.
   */
  revokeApiKey(
    organizationId: string,
    id: string,
    revokedAt: string,
    event: (row: ApiKeyRow) => ApiKeyEvent,
  ): Promise<ApiKeyRow | null>;
  /** Tells the key listeners an event that has no write of its own (a refused address). */
  announceKeyEvent(event: ApiKeyEvent): Promise<void>;
  /** A key's stored day counts from `since` (a date) on. */
  usageDaysSince(
    apiKeyId: string,
    since: string,
  ): Promise<{ date: string; requests: number; errors: number }[]>;
  /** Writes a batch of last uses and day counts at once; drops counts older than `keepSince`. */
  writeApiKeyUsage(batch: UsageBatch, keepSince: string): Promise<void>;
}
