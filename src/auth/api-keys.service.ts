import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { PlanTable } from "../shared/plans.ts";
import {
  type ApiKeyLimits,
  DAY_MS,
  parseApiKeyLimits,
  USAGE_DAYS,
  usageDate,
  usageDays,
} from "./api-keys.model.ts";
import type { ApiKeyEvent, ApiKeySummary } from "./api-keys.ports.ts";
import type { ApiKeyUsage } from "./api-keys.usage.ts";
import { authErrors } from "./auth.errors.ts";
import type { Principal } from "./auth.model.ts";
import { API_KEY_PREFIX, hashApiKey } from "./auth.service.ts";
import type { ApiKeyRow, AuthStore, NewApiKey } from "./auth.store.ts";

export interface ApiKeysDeps {
  /** Tells key events inside the transaction of their cause (see AuthStore). */
  store: AuthStore;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  plans: PlanTable;
  usage: ApiKeyUsage;
  onRevoked: (apiKeyId: string, organizationId: string) => void;
}

/** An API key as listed: never the key, never its hash (interface.md, API key; decisions.md §15). */
export const publicApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  created_at: row.createdAt,
  last_used_at: row.lastUsedAt,
  revoked_at: row.revokedAt,
  role: row.role,
  expires_at: row.expiresAt,
  rate_limit_per_minute: row.rateLimitPerMinute,
  allowed_ips: row.allowedIps,
});

export const summaryOf = (row: ApiKeySummary): ApiKeySummary => ({
  id: row.id,
  organizationId: row.organizationId,
  name: row.name,
  role: row.role,
  expiresAt: row.expiresAt,
});

/**
 * Checks the plan and the name, in the order the contract's errors are listed, then the limits
 * (a 422 naming the field).
 */
export function assertCanCreateApiKey(
  principal: Principal,
  body: unknown,
  deps: { plans: PlanTable; clock: Clock },
): { name: string; limits: ApiKeyLimits } {
  if (!deps.plans[principal.plan].api_keys) throw authErrors.planWithoutApiKeys();
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const name = record.name;
  if (typeof name !== "string" || name.trim() === "") throw authErrors.apiKeyNameRequired();
  const { limits, errors } = parseApiKeyLimits(record, deps.clock.now());
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return { name: name.trim().slice(0, 255), limits };
}

/** Creates a key: `svc_` + 32 base62 characters, shown once; only its SHA-256 is kept. */
export async function createApiKey(
  input: {
    organizationId: string;
    name: string;
    createdBy: string | null;
    limits?: ApiKeyLimits;
  },
  deps: Pick<ApiKeysDeps, "store" | "clock" | "ids" | "logger">,
) {
  const key = `${API_KEY_PREFIX}${deps.ids.base62(32)}`;
  const createdAt = isoAt(deps.clock.now());
  const row: NewApiKey = {
    id: deps.ids.uuid(),
    organizationId: input.organizationId,
    name: input.name,
    keyHash: hashApiKey(key),
    createdBy: input.createdBy,
    createdAt,
    lastUsedAt: null,
    revokedAt: null,
    role: input.limits?.role ?? "owner",
    expiresAt: input.limits?.expiresAt ?? null,
    rateLimitPerMinute: input.limits?.rateLimitPerMinute ?? null,
    allowedIps: input.limits?.allowedIps ?? null,
  };
  try {
    await deps.store.insertApiKey(row, {
      kind: "created",
      key: summaryOf(row),
      at: createdAt,
      ip: null,
    });
  } catch (error) {
    deps.logger.error("api key creation failed", { organization_id: input.organizationId, error });
    throw authErrors.apiKeyCreateFailed();
  }
  return { ...publicApiKey({ ...row, lastIp: null, lastUserAgent: null }), key };
}

/**
 * The organization's keys; a use not yet written shows already (read your own writes). With
 * `expiringWithinDays`, only active keys that expire within that many days from now.
 */
export async function listApiKeys(
  organizationId: string,
  deps: Pick<ApiKeysDeps, "store" | "usage" | "clock">,
  expiringWithinDays?: number,
) {
  let rows = await deps.store.listApiKeys(organizationId);
  if (expiringWithinDays !== undefined) {
    const now = isoAt(deps.clock.now());
    const until = isoAt(deps.clock.now() + expiringWithinDays * DAY_MS);
    rows = rows.filter(
      (row) =>
        row.revokedAt === null &&
        row.expiresAt !== null &&
        row.expiresAt > now &&
        row.expiresAt <= until,
    );
  }
  return rows.map((row) => {
    const unwritten = deps.usage.unwritten(row.id);
    if (unwritten === undefined) return publicApiKey(row);
    const usedAt = isoAt(unwritten.atMs);
    const lastUsedAt = row.lastUsedAt && row.lastUsedAt > usedAt ? row.lastUsedAt : usedAt;
    return publicApiKey({ ...row, lastUsedAt });
  });
}

/** Revokes at once: the next request with the key is refused (the guard reads revoked_at). */
export async function revokeApiKey(
  input: { organizationId: string; apiKeyId: string },
  deps: Pick<ApiKeysDeps, "store" | "clock" | "onRevoked">,
) {
  const at = isoAt(deps.clock.now());
  const revoked = await deps.store.revokeApiKey(
    input.organizationId,
    input.apiKeyId,
    at,
    (row): ApiKeyEvent => ({ kind: "revoked", key: summaryOf(row), at, ip: null }),
  );
  if (!revoked) throw authErrors.apiKeyNotFound();
  deps.onRevoked(input.apiKeyId, input.organizationId);
  return { message: "API key revoked" };
}

/**
 * A key's last 30 UTC days of requests and 4xx answers, and where it was last used from;
 * counts not yet flushed are included (read your own writes).
 */
export async function apiKeyUsage(
  input: { organizationId: string; apiKeyId: string },
  deps: Pick<ApiKeysDeps, "store" | "clock" | "usage">,
) {
  const row = await deps.store.findApiKey(input.organizationId, input.apiKeyId);
  if (!row) throw authErrors.apiKeyNotFound();
  const now = deps.clock.now();
  const since = usageDate(now - (USAGE_DAYS - 1) * DAY_MS);
  const counted = new Map(
    (await deps.store.usageDaysSince(row.id, since)).map((day) => [day.date, { ...day }]),
  );
  for (const [date, tally] of deps.usage.unwrittenDays(row.id)) {
    const day = counted.get(date) ?? { date, requests: 0, errors: 0 };
    day.requests += tally.requests;
    day.errors += tally.errors;
    counted.set(date, day);
  }
  const last = deps.usage.unwritten(row.id);
  return {
    data: {
      days: usageDays(counted, now),
      last_ip: last ? last.ip : row.lastIp,
      last_user_agent: last ? last.userAgent : row.lastUserAgent,
    },
  };
}

/** An API key as listed (the key itself only in the creation answer). */
export type ApiKeyJson = ReturnType<typeof publicApiKey> & { key?: string };
