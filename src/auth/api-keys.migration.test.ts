import { expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { DEFAULT_PLANS } from "../shared/plans.ts";
import { seedOrganization } from "../test-utils/capture-fixtures.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { listApiKeys } from "./api-keys.service.ts";
import { createApiKeyUsage } from "./api-keys.usage.ts";
import { createAuthService, hashApiKey } from "./auth.service.ts";
import { createAuthSqliteStore } from "./auth.sqlite.ts";

// Found by its suffix: the number in front may change as migrations are ordered.
const MIGRATION = MIGRATIONS.find((m) => m.name.endsWith("_api_keys_v2"))?.name ?? "missing";
const databaseBefore = useDatabasesBefore(MIGRATION);
const OLD_KEY = `svc_${"a".repeat(32)}`;

test("a key made before keys v2 keeps working as an owner without limits", async () => {
  const db = databaseBefore();
  seedOrganization(db.sqlite, "org");
  db.sqlite.run(
    `INSERT INTO api_keys (id, organization_id, name, key_hash, created_by, created_at, last_used_at, revoked_at)
     VALUES ('key-1', 'org', 'old ci', ?, NULL, '2025-06-01T00:00:00.000Z', NULL, NULL)`,
    [hashApiKey(OLD_KEY)],
  );
  runMigrations(db.sqlite, MIGRATIONS);

  const store = createAuthSqliteStore(db);
  const clock = createFakeClock();
  const usage = createApiKeyUsage((batch) => store.writeApiKeyUsage(batch, "2000-01-01"));
  const auth = createAuthService({
    store,
    clock,
    secretKey: new Uint8Array(32),
    jwtTtlMs: 60_000,
    plans: DEFAULT_PLANS,
    usage,
  });
  // Far more than any limit a new key could be given in one instant, from no known address.
  for (let i = 0; i < 200; i++) {
    const principal = await auth.authenticate({
      authorization: null,
      apiKey: OLD_KEY,
      organizationId: null,
    });
    expect(principal).toMatchObject({ authMethod: "api_key", apiKeyId: "key-1", role: "owner" });
  }
  expect(await listApiKeys("org", { store, usage, clock })).toEqual([
    expect.objectContaining({
      id: "key-1",
      role: "owner",
      expires_at: null,
      rate_limit_per_minute: null,
      allowed_ips: null,
    }),
  ]);
  usage.answered("key-1", clock.now(), 200);
  await usage.flush();
  expect(await store.usageDaysSince("key-1", "2000-01-01")).toEqual([
    { date: "2026-01-01", requests: 1, errors: 0 },
  ]);
});
