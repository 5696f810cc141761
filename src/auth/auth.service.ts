import { createHash } from "node:crypto";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { PlanTable } from "../shared/plans.ts";
import { createTokenBuckets } from "../shared/token-bucket.ts";
import { type ApiKeyAccess, createApiKeyAccess, type RequestOrigin } from "./api-keys.access.ts";
import type { ApiKeyUsage } from "./api-keys.usage.ts";
import { jwtSigningKey, readJwt, signJwt } from "./auth.jwt.ts";
import type { Plan, Principal } from "./auth.model.ts";
import type { AuthStore, UserRow } from "./auth.store.ts";

export const API_KEY_PREFIX = "svc_";
const API_KEY_SHAPE = /^svc_[0-9A-Za-z]{32}$/;

/** The credentials of a request, as the guard reads them from its headers. */
export interface Credentials {
  authorization: string | null;
  apiKey: string | null;
  organizationId: string | null;
  /** The web UI's session cookie, passed only for a same-origin UI call (src/http/http.ui-session.ts). */
  sessionToken?: string | null;
  /** Where the request came from: a key's allowlist and its usage read it. */
  origin?: RequestOrigin;
}

export interface AuthServiceDeps {
  store: AuthStore;
  clock: Clock;
  secretKey: Uint8Array;
  jwtTtlMs: number;
  plans: PlanTable;
  usage: ApiKeyUsage;
  /** A key's own limits; the server passes its own, others get a fresh one (limits still hold). */
  access?: ApiKeyAccess;
}

/** A key over its own rate limit: 429 with `Retry-After` (seconds). */
export interface RateLimited {
  rateLimited: number;
  apiKeyId: string;
}

/**
 * Why credentials that once worked no longer do: what a live socket is told when it is closed.
 * `plan_without_api_keys` is also what a request with a key of such a plan gets (403).
 */
export type Denial =
  | "invalid_token"
  | "token_expired"
  | "password_changed"
  | "not_member"
  | "api_key_revoked"
  | "api_key_expired"
  | "api_key_ip_not_allowed"
  | "plan_without_api_keys";

/** SHA-256 of an API key, hex: the only form in which a key is stored. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** A password's version: changes with the hash, so a reset invalidates earlier tokens. */
const passwordVersion = (user: UserRow) =>
  createHash("sha256").update(user.passwordHash).digest("hex").slice(0, 16);

/**
 * Turns credentials into a Principal (interface.md Authentication): Bearer `svc_…`, then
 * `X-API-Key: svc_…`, then Bearer JWT. Every failure is the same null, so callers answer one 401.
 */
export function createAuthService(deps: AuthServiceDeps) {
  const signingKey = jwtSigningKey(deps.secretKey);
  const nowSeconds = () => Math.floor(deps.clock.now() / 1000);
  const access =
    deps.access ??
    createApiKeyAccess({ clock: deps.clock, buckets: createTokenBuckets(), usage: deps.usage });

  /**
   * A key's principal with the key's own role, or why not; `recordUse` is false for re-checks
   * of a live socket (no rate token, no use recorded).
   */
  async function checkApiKey(
    key: string,
    recordUse: boolean,
    origin: RequestOrigin | null,
  ): Promise<Principal | Denial | RateLimited> {
    if (!API_KEY_SHAPE.test(key)) return "invalid_token";
    const found = await deps.store.activeKeyByHash(hashApiKey(key));
    if (!found) return "api_key_revoked";
    if (!deps.plans[found.plan as Plan]?.api_keys) return "plan_without_api_keys";
    const verdict = access.check(found, origin, recordUse);
    if (verdict === "api_key_expired") return "api_key_expired";
    if (verdict === "ip_not_allowed") return "api_key_ip_not_allowed";
    if (verdict !== "ok") return verdict;
    if (recordUse) {
      deps.usage.record(found.id, {
        atMs: deps.clock.now(),
        ip: origin?.ip ?? null,
        userAgent: origin?.userAgent ?? null,
      });
    }
    return {
      authMethod: "api_key",
      userId: null,
      apiKeyId: found.id,
      organizationId: found.organizationId,
      role: found.role,
      plan: found.plan as Plan,
    };
  }

  /**
   * A JWT's user acting in `organizationId` (or the token's default organization), or why not.
   * `not_member` of the token's own default organization counts as invalid for requests.
   */
  async function checkJwt(
    token: string,
    organizationId: string | null,
  ): Promise<Principal | Denial> {
    const claims = readJwt(token, signingKey);
    if (!claims) return "invalid_token";
    if (claims.exp <= nowSeconds()) return "token_expired";
    const user = await deps.store.userById(claims.sub);
    if (!user) return "invalid_token";
    if (passwordVersion(user) !== claims.pv) return "password_changed";
    const orgId = organizationId ?? claims.org;
    const membership = await deps.store.membership(user.id, orgId);
    if (!membership) return "not_member";
    return {
      authMethod: "jwt",
      userId: user.id,
      apiKeyId: null,
      organizationId: orgId,
      role: membership.role,
      plan: membership.plan as Plan,
    };
  }

  const fromApiKey = async (key: string, origin: RequestOrigin | null) => {
    const result = await checkApiKey(key, true, origin);
    return result === "plan_without_api_keys" || typeof result === "object" ? result : null;
  };

  return {
    /**
     * Resolves request credentials. `not_member` means a valid user named an organization they
     * do not belong to (answered 404, decisions.md §2: other organizations are invisible);
     * `plan_without_api_keys` a valid key of an organization whose plan has none (403);
     * `RateLimited` a key over its own rate (429).
     */
    async authenticate(
      credentials: Credentials,
    ): Promise<Principal | RateLimited | null | "not_member" | "plan_without_api_keys"> {
      const origin = credentials.origin ?? null;
      const bearer = bearerValue(credentials.authorization);
      if (bearer?.startsWith(API_KEY_PREFIX)) return fromApiKey(bearer, origin);
      const headerKey = credentials.apiKey?.trim();
      if (headerKey?.startsWith(API_KEY_PREFIX)) return fromApiKey(headerKey, origin);
      // A login token only: the cookie never carries an API key.
      const jwt = bearer ?? credentials.sessionToken ?? null;
      if (!jwt || jwt.startsWith(API_KEY_PREFIX)) return null;
      const organizationId = credentials.organizationId?.trim() || null;
      const result = await checkJwt(jwt, organizationId);
      if (typeof result === "object") return result;
      return result === "not_member" && organizationId ? "not_member" : null;
    },

    /**
     * A socket token: an API key or a JWT (decisions.md §7). No address reaches it, so a key
     * with an allowlist is refused here (fails closed).
     */
    async authenticateToken(token: string): Promise<Principal | null> {
      const result = token.startsWith(API_KEY_PREFIX)
        ? await checkApiKey(token, true, null)
        : await checkJwt(token, null);
      return typeof result === "object" && !("rateLimited" in result) ? result : null;
    },

    /**
     * Re-checks the token of a live socket acting in `organizationId`: the current principal
     * (role and plan may have changed), or why the socket's rights are gone. Records no use.
     */
    async recheckToken(token: string, organizationId: string): Promise<Principal | Denial> {
      if (token.startsWith(API_KEY_PREFIX)) {
        const result = await checkApiKey(token, false, null);
        // A re-check takes no rate token, so it is never rate limited.
        return typeof result === "object" && "rateLimited" in result ? "invalid_token" : result;
      }
      return checkJwt(token, organizationId);
    },

    /** The same caller acting in `organizationId` (a path's org): null when not theirs. */
    async forOrganization(principal: Principal, organizationId: string): Promise<Principal | null> {
      if (principal.organizationId === organizationId) return principal;
      if (principal.authMethod !== "jwt" || !principal.userId) return null;
      const membership = await deps.store.membership(principal.userId, organizationId);
      if (!membership) return null;
      return { ...principal, organizationId, role: membership.role, plan: membership.plan as Plan };
    },

    /** Signs a login token for `user`, by default acting in `organizationId`. */
    issueToken(user: UserRow, organizationId: string): { token: string; expiresAt: string } {
      const iat = nowSeconds();
      const exp = iat + Math.max(1, Math.floor(deps.jwtTtlMs / 1000));
      const token = signJwt(
        { sub: user.id, org: organizationId, iat, exp, pv: passwordVersion(user) },
        signingKey,
      );
      return { token, expiresAt: isoAt(exp * 1000) };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

function bearerValue(header: string | null): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
