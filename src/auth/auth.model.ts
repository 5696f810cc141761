import type { Plan } from "../shared/plans.ts";

// Plans are configuration (src/shared/plans.ts); re-exported where callers meet them with roles.
export { PLANS, type Plan } from "../shared/plans.ts";

/** Roles in an organization, weakest first (decisions.md §2). */
export const ROLES = ["member", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling, on behalf of which organization: what the auth guard puts on every request. */
export interface Principal {
  authMethod: "api_key" | "jwt";
  /** The logged-in user; null for an API key. */
  userId: string | null;
  /** The API key used; null for a JWT. */
  apiKeyId: string | null;
  organizationId: string;
  role: Role;
  plan: Plan;
}

/**
 * What a call needs: `read` (any member), `write` (admin: create/update/delete resources),
 * `manage` (owner: members, plan-level settings), `manage_api_keys` (owner with a JWT only).
 */
export type Permission = "read" | "write" | "manage" | "manage_api_keys";

const NEEDED_ROLE: Record<Permission, Role> = {
  read: "member",
  write: "admin",
  manage: "owner",
  manage_api_keys: "owner",
};

/** True when `role` is `needed` or stronger. */
export function roleAtLeast(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/**
 * The one role check. An API key acts with its own role (owner unless it was made with another,
 * decisions.md §15) except for key management, which needs a JWT; callers turn the answer into
 * 403 `forbidden` or `jwt_required`.
 */
export function checkPermission(
  principal: Principal,
  permission: Permission,
): "ok" | "forbidden" | "jwt_required" {
  if (permission === "manage_api_keys" && principal.authMethod !== "jwt") return "jwt_required";
  return roleAtLeast(principal.role, NEEDED_ROLE[permission]) ? "ok" : "forbidden";
}

/** Lowercased, trimmed email: the key that makes addresses unique whatever their spelling. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}
