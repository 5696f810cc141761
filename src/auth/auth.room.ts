import type { AppDeps } from "../deps.ts";
import { createClientIpResolver } from "../http/http.client-ip.ts";
import { createKeyedLimiter, perMinute } from "../shared/token-bucket.ts";
import type { AccountsDeps } from "./accounts.service.ts";
import type { ApiKeysDeps } from "./api-keys.service.ts";
import { createApiKeyUsage } from "./api-keys.usage.ts";
import { createAuthRepo } from "./auth.repo.ts";
import { createAuthService } from "./auth.service.ts";

/**
 * Builds the auth room once per app: the guard's service, and the deps of its use cases.
 * Last-use times of API keys are written every 10 s and at shutdown, never on the request path.
 */
export function createAuthRoom(deps: AppDeps) {
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
  deps.scheduler.every("auth.api-key-usage-flush", "*/10 * * * * *", flushUsage);
  deps.bus.on("server.stopping", flushUsage);
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
    /** Per client: guessing passwords gets slow; a person who mistypes twice does not notice. */
    loginLimiter: createKeyedLimiter(deps.clock, perMinute(10, 10)),
    /** Per client: registering is rare, creating accounts in bulk is not a use. */
    registrationLimiter: createKeyedLimiter(deps.clock, perMinute(10, 1)),
    /** How long the web UI's session cookie lives: the login token's lifetime. */
    sessionTtlSeconds: Math.max(1, Math.floor(deps.config.jwt_ttl / 1000)),
    logger: deps.logger.child({ scope: "auth" }),
    /** Behind a trusted reverse proxy, each client gets its own login bucket. */
    clientIp: createClientIpResolver(deps.config.trusted_proxies),
  };
}

export type AuthRoom = ReturnType<typeof createAuthRoom>;
