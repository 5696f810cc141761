// The per-use checks of a key's own limits (decisions.md §15): expiry, its address allowlist
// and its rate. A denial is counted in the key's usage; a refused address is logged with the
// key's id (never the key) and announced once per key and address, a few new addresses an hour.
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { createTokenBuckets, perMinute, type TokenBuckets } from "../shared/token-bucket.ts";
import { allowlistMatcher, isExpired } from "./api-keys.model.ts";
import type { ApiKeyUsage } from "./api-keys.usage.ts";
import type { ActiveKey } from "./auth.store.ts";

/** Where a request came from, as the server tells clients apart (trusted proxies honoured). */
export interface RequestOrigin {
  ip: string | null;
  userAgent: string | null;
}

export type AccessVerdict =
  | "ok"
  | "api_key_expired"
  | "ip_not_allowed"
  | { rateLimited: number; apiKeyId: string };

export interface ApiKeyAccessDeps {
  clock: Clock;
  buckets: TokenBuckets;
  usage: ApiKeyUsage;
  /** Absent where no server runs (the CLI): limits still hold, nobody is told. */
  logger?: Logger;
  /** Told once per key and address that the address was refused (key events, alerts). */
  onDeniedIp?(key: ActiveKey, ip: string | null): void;
}

/**
 * Entries held in each in-memory table (allowlist matchers, addresses already announced): when
 * full it is cleared whole, which costs at worst a rebuilt matcher or a repeated announcement.
 */
const TABLE_MAX = 10_000;

/**
 * New refused addresses announced per key (log line and key event): 10 at once, then 10 an hour.
 * A leaked key tried from a whole IPv6 range would otherwise write one of each per request.
 */
const ANNOUNCED_ADDRESSES = perMinute(10, 10 / 60);

export function createApiKeyAccess(deps: ApiKeyAccessDeps) {
  const matchers = new Map<string, (ip: string | null) => boolean>();
  const announced = new Set<string>();
  // Apart from the rate buckets, so refused addresses never take the place of a key's rate.
  const announcing = createTokenBuckets();
  const matcherOf = (allowedIps: string) => {
    let matcher = matchers.get(allowedIps);
    if (!matcher) {
      if (matchers.size >= TABLE_MAX) matchers.clear();
      matcher = allowlistMatcher(JSON.parse(allowedIps) as string[]);
      matchers.set(allowedIps, matcher);
    }
    return matcher;
  };
  const denyIp = (key: ActiveKey, ip: string | null, now: number) => {
    const seen = `${key.id} ${ip}`;
    if (announced.has(seen)) return;
    if (announcing.take(key.id, ANNOUNCED_ADDRESSES, now) > 0) return;
    if (announced.size >= TABLE_MAX) announced.clear();
    announced.add(seen);
    deps.logger?.warn("API key used from an address it does not allow", {
      api_key_id: key.id,
      organization_id: key.organizationId,
      address: ip,
    });
    deps.onDeniedIp?.(key, ip);
  };

  return {
    /**
     * Whether `key` may be used now from `origin`. `counted` is false for re-checks of a live
     * socket: they take no rate token and count no use. A null origin (no request to read an
     * address from) fails an allowlist closed.
     */
    check(key: ActiveKey, origin: RequestOrigin | null, counted: boolean): AccessVerdict {
      const now = deps.clock.now();
      if (isExpired(key.expiresAt, now)) return "api_key_expired";
      const ip = origin?.ip ?? null;
      if (key.allowedIps && !matcherOf(key.allowedIps)(ip)) {
        if (!counted) return "ip_not_allowed";
        deps.usage.answered(key.id, now, 401);
        denyIp(key, ip, now);
        return "ip_not_allowed";
      }
      if (counted && key.rateLimitPerMinute !== null) {
        const rule = perMinute(key.rateLimitPerMinute, key.rateLimitPerMinute);
        const wait = deps.buckets.take(`api-key:${key.id}`, rule, now);
        if (wait > 0) {
          deps.usage.answered(key.id, now, 429);
          return { rateLimited: wait, apiKeyId: key.id };
        }
      }
      return "ok";
    },
  };
}

export type ApiKeyAccess = ReturnType<typeof createApiKeyAccess>;
