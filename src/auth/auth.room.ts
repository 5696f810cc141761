import { Elysia } from "elysia";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { ClientIpResolver } from "../http/http.client-ip.ts";
import type { Room } from "../room.ts";
import { isoAt } from "../shared/clock.ts";
import { createKeyedLimiter, createTokenBuckets, perMinute } from "../shared/token-bucket.ts";
import { accountSettingsRoutes } from "./account-settings.routes.ts";
import type { AccountsDeps } from "./accounts.service.ts";
import { createApiKeyAccess } from "./api-keys.access.ts";
import { DAY_MS, USAGE_DAYS, usageDate } from "./api-keys.model.ts";
import type { ApiKeyEvent, ApiKeyPorts } from "./api-keys.ports.ts";
import { apiKeyRoutes } from "./api-keys.routes.ts";
import { type ApiKeysDeps, summaryOf } from "./api-keys.service.ts";
import { createApiKeyUsage } from "./api-keys.usage.ts";
import { authGuard } from "./auth.guard.ts";
import { createAuthPostgresStore } from "./auth.postgres.ts";
import { authRoutes } from "./auth.routes.ts";
import type { AuthService } from "./auth.service.ts";
import { createAuthService } from "./auth.service.ts";
import { createAuthSqliteStore } from "./auth.sqlite.ts";
import type { AuthStore } from "./auth.store.ts";
import { memberRoutes } from "./members.routes.ts";

export type AuthRoomDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "bus" | "secretKey" | "config"
> &
  RoomStorage;

/** What the auth room lends: the one guard of management routes, and socket authentication. */
export interface AuthPorts {
  /** A fresh guard plugin: routes declared after `.use(guard())` receive `principal`. */
  guard(): ReturnType<typeof authGuard>;
  auth: Pick<AuthService, "authenticateToken" | "forOrganization" | "recheckToken">;
  /** Key events and expiring keys, for alert rules. */
  apiKeys: ApiKeyPorts;
  /**
   * Counts an answer in the usage of the key that made the request (the HTTP layer calls it
   * for every answer; a request made otherwise is ignored).
   */
  countAnswer(principal: { apiKeyId?: string | null } | undefined, status: number): void;
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
      {
        name: "auth.api-key-usage-flush",
        scope: "node",
        pattern: USAGE_FLUSH_PATTERN,
        run: parts.flushUsage,
      },
    ],
    subscriptions: [],
    stop: parts.flushUsage,
    ports: {
      guard: () => authGuard(parts.auth, parts.clientIp),
      auth: parts.auth,
      apiKeys: parts.apiKeyPorts,
      countAnswer: (principal, status) => {
        if (principal?.apiKeyId) parts.usage.answered(principal.apiKeyId, deps.clock.now(), status);
      },
    },
  };
}

/** The auth room's use-case deps, as its routes take them. */
function buildAuthParts(deps: AuthRoomDeps, ports: { resolveClientIp: ClientIpResolver }) {
  const keyListeners: ((tx: TxHandle, event: ApiKeyEvent) => void)[] = [];
  const keyListenersPostgres: ((tx: PostgresTx, event: ApiKeyEvent) => Promise<void>)[] = [];
  const store = authStoreOf(
    deps,
    (tx, event) => {
      for (const listener of keyListeners) listener(tx, event);
    },
    async (tx, event) => {
      for (const listener of keyListenersPostgres) await listener(tx, event);
    },
  );
  // Day counts older than the usage answer covers are dropped as new ones are written.
  const usage = createApiKeyUsage((batch) =>
    store.writeApiKeyUsage(batch, usageDate(deps.clock.now() - USAGE_DAYS * DAY_MS)),
  );
  const usageLogger = deps.logger.child({ scope: "api-keys" });
  const access = createApiKeyAccess({
    clock: deps.clock,
    buckets: createTokenBuckets(),
    usage,
    logger: usageLogger,
    onDeniedIp(key, ip) {
      if (keyListeners.length === 0 && keyListenersPostgres.length === 0) return;
      const event: ApiKeyEvent = {
        kind: "denied_ip",
        key: summaryOf(key),
        at: isoAt(deps.clock.now()),
        ip,
      };
      // Best effort: the request is refused whether or not its alert could be written.
      store.announceKeyEvent(event).catch((error: unknown) => {
        usageLogger.warn("refused address not announced", { api_key_id: key.id, error });
      });
    },
  });
  const auth = createAuthService({
    store,
    clock: deps.clock,
    secretKey: deps.secretKey,
    jwtTtlMs: deps.config.jwt_ttl,
    plans: deps.config.plans,
    usage,
    access,
  });
  const apiKeyPorts: ApiKeyPorts = {
    onApiKeyEvent: (listener) => void keyListeners.push(listener),
    onApiKeyEventPostgres: (listener) => void keyListenersPostgres.push(listener),
    keysExpiringBetween: async (from, until, limit) =>
      (await store.keysExpiringBetween(from, until, limit)).map(summaryOf),
  };
  const flushUsage = async () => {
    try {
      await usage.flush();
    } catch (error) {
      usageLogger.warn("last-use times not written; kept for the next flush", { error });
    }
  };
  const accounts: AccountsDeps = {
    store,
    clock: deps.clock,
    ids: deps.ids,
    auth,
    registration: deps.config.registration,
    defaultPlan: deps.config.default_plan,
    plans: deps.config.plans,
  };
  const apiKeys: ApiKeysDeps = {
    store,
    clock: deps.clock,
    ids: deps.ids,
    logger: usageLogger,
    plans: deps.config.plans,
    usage,
    onRevoked: (apiKeyId, organizationId) =>
      deps.bus.publish("api_key.revoked", { apiKeyId, organizationId }),
  };
  return {
    store,
    auth,
    usage,
    accounts,
    apiKeys,
    apiKeyPorts,
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

/**
 * The PostgreSQL store when the room is given one, else SQLite's. Key listeners write through a
 * SQLite transaction handle, so on PostgreSQL they are not told yet (the alerts room is still
 * SQLite-only).
 */
function authStoreOf(
  deps: AuthRoomDeps,
  keyEvents: (tx: TxHandle, event: ApiKeyEvent) => void,
  keyEventsPostgres: (tx: PostgresTx, event: ApiKeyEvent) => Promise<void>,
): AuthStore {
  if (deps.postgres) {
    return createAuthPostgresStore(deps.postgres, { keyEvents: keyEventsPostgres });
  }
  return createAuthSqliteStore(sqliteOf(deps), { keyEvents });
}

export type AuthParts = ReturnType<typeof buildAuthParts>;
