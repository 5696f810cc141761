import type { ApiKeyEvent } from "../auth/api-keys.ports.ts";
import type { Plan, Role } from "../auth/auth.model.ts";
import type {
  AuthStore,
  NewAccountRows,
  NewApiKey,
  OrganizationRow,
  UserRow,
} from "../auth/auth.store.ts";

/** Rows for the auth store's contract tests: made at whole minutes of 2026-01-01. */
export const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

export const user = (id: string, email: string, minute = 0): UserRow => ({
  id,
  email,
  emailKey: email.toLowerCase(),
  passwordHash: `hash-${id}`,
  createdAt: at(minute),
  updatedAt: at(minute),
});

/** A new user in a new organization (or in `join`), made at `minute`. */
export const account = (
  name: string,
  options: { minute?: number; join?: string; role?: Role; plan?: Plan; first?: boolean } = {},
): NewAccountRows => ({
  user: user(`u-${name}`, `${name}@Example.test`, options.minute ?? 0),
  join: options.join ?? null,
  organization: { id: `o-${name}`, name: `Org ${name}`, createdAt: at(options.minute ?? 0) },
  plan: { first: "enterprise", later: options.plan ?? "free" },
  role: options.role ?? "member",
  onlyFirstUser: options.first ?? false,
});

export const key = (
  id: string,
  organizationId: string,
  minute: number,
  extra: Partial<NewApiKey> = {},
) =>
  ({
    id,
    organizationId,
    name: `key ${id}`,
    keyHash: `hash-${id}`,
    createdBy: null,
    createdAt: at(minute),
    lastUsedAt: null,
    revokedAt: null,
    role: "owner",
    expiresAt: null,
    rateLimitPerMinute: null,
    allowedIps: null,
    ...extra,
  }) satisfies NewApiKey;

export const created = (row: NewApiKey): ApiKeyEvent => ({
  kind: "created",
  key: {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    role: row.role,
    expiresAt: row.expiresAt,
  },
  at: row.createdAt,
  ip: null,
});

export async function organization(
  store: AuthStore,
  rows: NewAccountRows,
): Promise<OrganizationRow> {
  const outcome = await store.insertAccount(rows);
  if (typeof outcome === "string") throw new Error(`account not made: ${outcome}`);
  return outcome.organization;
}
