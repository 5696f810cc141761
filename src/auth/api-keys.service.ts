import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { PlanTable } from "../shared/plans.ts";
import type { ApiKeyUsage } from "./api-keys.usage.ts";
import { authErrors } from "./auth.errors.ts";
import type { Principal } from "./auth.model.ts";
import type { ApiKeyRow, AuthRepo } from "./auth.repo.ts";
import { API_KEY_PREFIX, hashApiKey } from "./auth.service.ts";

export interface ApiKeysDeps {
  repo: AuthRepo;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  plans: PlanTable;
  usage: ApiKeyUsage;
  onRevoked: (apiKeyId: string, organizationId: string) => void;
}

/** An API key as listed: never the key, never its hash (interface.md, API key). */
export const publicApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  created_at: row.createdAt,
  last_used_at: row.lastUsedAt,
  revoked_at: row.revokedAt,
});

/** Checks the plan and the name, in the order the contract's errors are listed. */
export function assertCanCreateApiKey(
  principal: Principal,
  name: unknown,
  plans: PlanTable,
): string {
  if (!plans[principal.plan].api_keys) throw authErrors.planWithoutApiKeys();
  if (typeof name !== "string" || name.trim() === "") throw authErrors.apiKeyNameRequired();
  return name.trim().slice(0, 255);
}

/** Creates a key: `svc_` + 32 base62 characters, shown once; only its SHA-256 is kept. */
export function createApiKey(
  input: { organizationId: string; name: string; createdBy: string | null },
  deps: Omit<ApiKeysDeps, "plans" | "onRevoked" | "usage">,
) {
  const key = `${API_KEY_PREFIX}${deps.ids.base62(32)}`;
  const row: ApiKeyRow = {
    id: deps.ids.uuid(),
    organizationId: input.organizationId,
    name: input.name,
    keyHash: hashApiKey(key),
    createdBy: input.createdBy,
    createdAt: isoAt(deps.clock.now()),
    lastUsedAt: null,
    revokedAt: null,
  };
  try {
    deps.repo.insertApiKey(row);
  } catch (error) {
    deps.logger.error("api key creation failed", { organization_id: input.organizationId, error });
    throw authErrors.apiKeyCreateFailed();
  }
  return { ...publicApiKey(row), key };
}

/** The organization's keys; a use not yet written shows already (read your own writes). */
export const listApiKeys = (organizationId: string, deps: Pick<ApiKeysDeps, "repo" | "usage">) =>
  deps.repo.listApiKeys(organizationId).map((row) => {
    const unwritten = deps.usage.unwritten(row.id);
    if (unwritten === undefined) return publicApiKey(row);
    const usedAt = isoAt(unwritten);
    const lastUsedAt = row.lastUsedAt && row.lastUsedAt > usedAt ? row.lastUsedAt : usedAt;
    return publicApiKey({ ...row, lastUsedAt });
  });

/** Revokes at once: the next request with the key is refused (the guard reads revoked_at). */
export function revokeApiKey(
  input: { organizationId: string; apiKeyId: string },
  deps: Pick<ApiKeysDeps, "repo" | "clock" | "onRevoked">,
) {
  const revoked = deps.repo.revokeApiKey(
    input.organizationId,
    input.apiKeyId,
    isoAt(deps.clock.now()),
  );
  if (!revoked) throw authErrors.apiKeyNotFound();
  deps.onRevoked(input.apiKeyId, input.organizationId);
  return { message: "API key revoked" };
}

/** An API key as listed (the key itself only in the creation answer). */
export type ApiKeyJson = ReturnType<typeof publicApiKey> & { key?: string };
