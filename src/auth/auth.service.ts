import { createHash } from "node:crypto";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { ApiKeyUsage } from "./api-keys.usage.ts";
import { jwtSigningKey, signJwt, verifyJwt } from "./auth.jwt.ts";
import type { Plan, Principal } from "./auth.model.ts";
import type { AuthRepo, UserRow } from "./auth.repo.ts";

export const API_KEY_PREFIX = "svc_";
const API_KEY_SHAPE = /^svc_[0-9A-Za-z]{32}$/;

/** The credentials of a request, as the guard reads them from its headers. */
export interface Credentials {
  authorization: string | null;
  apiKey: string | null;
  organizationId: string | null;
  /** The web UI's session cookie, passed only for a same-origin UI call (src/http/http.ui-session.ts). */
  sessionToken?: string | null;
}

export interface AuthServiceDeps {
  repo: AuthRepo;
  clock: Clock;
  secretKey: Uint8Array;
  jwtTtlMs: number;
  usage: ApiKeyUsage;
}

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

  function fromApiKey(key: string): Principal | null {
    if (!API_KEY_SHAPE.test(key)) return null;
    const found = deps.repo.activeKeyByHash(hashApiKey(key));
    if (!found) return null;
    deps.usage.record(found.id, deps.clock.now());
    return {
      authMethod: "api_key",
      userId: null,
      apiKeyId: found.id,
      organizationId: found.organizationId,
      role: "owner",
      plan: found.plan as Plan,
    };
  }

  /** A JWT's user acting in `organizationId` (or the token's default organization). */
  function fromJwt(token: string, organizationId: string | null): Principal | null | "not_member" {
    const claims = verifyJwt(token, signingKey, nowSeconds());
    if (!claims) return null;
    const user = deps.repo.userById(claims.sub);
    if (!user || passwordVersion(user) !== claims.pv) return null;
    const orgId = organizationId ?? claims.org;
    const membership = deps.repo.membership(user.id, orgId);
    if (!membership) return organizationId ? "not_member" : null;
    return {
      authMethod: "jwt",
      userId: user.id,
      apiKeyId: null,
      organizationId: orgId,
      role: membership.role,
      plan: membership.plan as Plan,
    };
  }

  return {
    /**
     * Resolves request credentials. `not_member` means a valid user named an organization they
     * do not belong to (answered 404, decisions.md §2: other organizations are invisible).
     */
    authenticate(credentials: Credentials): Principal | null | "not_member" {
      const bearer = bearerValue(credentials.authorization);
      if (bearer?.startsWith(API_KEY_PREFIX)) return fromApiKey(bearer);
      const headerKey = credentials.apiKey?.trim();
      if (headerKey?.startsWith(API_KEY_PREFIX)) return fromApiKey(headerKey);
      // A login token only: the cookie never carries an API key.
      const jwt = bearer ?? credentials.sessionToken ?? null;
      if (!jwt || jwt.startsWith(API_KEY_PREFIX)) return null;
      return fromJwt(jwt, credentials.organizationId?.trim() || null);
    },

    /** A socket token: an API key or a JWT (decisions.md §7). */
    authenticateToken(token: string): Principal | null {
      if (token.startsWith(API_KEY_PREFIX)) return fromApiKey(token);
      const principal = fromJwt(token, null);
      return principal === "not_member" ? null : principal;
    },

    /** The same caller acting in `organizationId` (a path's org): null when not theirs. */
    forOrganization(principal: Principal, organizationId: string): Principal | null {
      if (principal.organizationId === organizationId) return principal;
      if (principal.authMethod !== "jwt" || !principal.userId) return null;
      const membership = deps.repo.membership(principal.userId, organizationId);
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
