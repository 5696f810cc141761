import { Elysia } from "elysia";
import type { AppDeps } from "../deps.ts";
import type { ClientIpResolver } from "../http/http.client-ip.ts";
import type { Room } from "../room.ts";
import { createKeyedLimiter, perMinute } from "../shared/token-bucket.ts";
import { accountSettingsRoutes } from "./account-settings.routes.ts";
import type { AccountsDeps } from "./accounts.service.ts";
import { apiKeyRoutes } from "./api-keys.routes.ts";
import type { ApiKeysDeps } from "./api-keys.service.ts";
import { createApiKeyUsage } from "./api-keys.usage.ts";
import { authGuard } from "./auth.guard.ts";
import { createAuthRepo } from "./auth.repo.ts";
import { authRoutes } from "./auth.routes.ts";
import type { AuthService } from "./auth.service.ts";
import { createAuthService } from "./auth.service.ts";
import { memberRoutes } from "./members.routes.ts";

export type AuthRoomDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "bus" | "secretKey" | "config"
>;

/** What the auth room lends: the one guard of management routes, and socket authentication. */
export interface AuthPorts {
  /** A fresh guard plugin: routes declared after `.use(guard())` receive `principal`. */
  guard(): ReturnType<typeof authGuard>;
  auth: Pick<AuthService, "authenticateToken" | "forOrganization" | "recheckToken">;
}

/** Last-use times of API keys are written every 10 s and at shutdown, never on the request path. */
const USAGE_FLUSH_PATTERN = "*/10 * * * * *";

/**
 * Builds the auth room: accounts, API keys and members, the guard other rooms mount, and the
 * flush of API-key last-use times.
 */
export function createAuthRoom(
  deps: AuthRoomDeps,
  ports: { resolveClientIp: ClientIpResolver },
): Room<AuthPorts> {
  const parts = buildAuthParts(deps, ports);
  return {
    routes: new Elysia({ name: "weir-auth" })
      .use(authRoutes(parts))
      .use(apiKeyRoutes(parts))
      .use(memberRoutes(parts))
      .use(accountSettingsRoutes(parts)),
    jobs: [
      { name: "auth.api-key-usage-flush", pattern: USAGE_FLUSH_PATTERN, run: parts.flushUsage },
    ],
    subscriptions: [],
    stop: parts.flushUsage,
    ports: { guard: () => authGuard(parts.auth), auth: parts.auth },
  };
}

/** The auth room's use-case deps, as its routes take them. */
function buildAuthParts(deps: AuthRoomDeps, ports: { resolveClientIp: ClientIpResolver }) {
  const repo = createAuthRepo(deps.db);
  const usage = createApiKeyUsage((uses) => repo.touchApiKeys(uses));
  const auth = createAuthService({
    repo,
    clock: deps.clock,
    secretKey: deps.secretKey,
    jwtTtlMs: deps.config.jwt_ttl,
    plans: deps.config.plans,
    usage,
  });
  const usageLogger = deps.logger.child({ scope: "api-keys" });
  const flushUsage = () => {
    try {
      usage.flush();
    } catch (error) {
      usageLogger.warn("last-use times not written; kept for the next flush", { error });
    }
  };
  const accounts: AccountsDeps = {
    repo,
    clock: deps.clock,
    ids: deps.ids,
    auth,
    registration: deps.config.registration,
    defaultPlan: deps.config.default_plan,
    plans: deps.config.plans,
  };
  const apiKeys: ApiKeysDeps = {
    repo,
    clock: deps.clock,
    ids: deps.ids,
    logger: usageLogger,
    plans: deps.config.plans,
    usage,
    onRevoked: (apiKeyId, organizationId) =>
      deps.bus.publish("api_key.revoked", { apiKeyId, organizationId }),
  };
  return {
    repo,
    auth,
    usage,
    accounts,
    apiKeys,
    flushUsage,
    /** Per client: guessing passwords gets slow; a person who mistypes twice does not notice. */
    loginLimiter: createKeyedLimiter(deps.clock, perMinute(10, 10)),
    /** Per client: registering is rare, creating accounts in bulk is not a use. */
    registrationLimiter: createKeyedLimiter(deps.clock, perMinute(10, 1)),
    /** Whether the login page may offer a temporary URL (WEIR_ANONYMOUS_ENDPOINTS). */
    anonymousEndpoints: deps.config.anonymous_endpoints,
    /** How long the web UI's session cookie lives: the login token's lifetime. */
    sessionTtlSeconds: Math.max(1, Math.floor(deps.config.jwt_ttl / 1000)),
    logger: deps.logger.child({ scope: "auth" }),
    onMembershipChanged: (userId: string, organizationId: string) =>
      deps.bus.publish("membership.changed", { userId, organizationId }),
    /** Behind a trusted reverse proxy, each client gets its own login bucket. */
    clientIp: ports.resolveClientIp,
  };
}

export type AuthParts = ReturnType<typeof buildAuthParts>;
