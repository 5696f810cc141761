import { afterAll, beforeAll, expect, test } from "bun:test";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { DomainEvents } from "../events.ts";
import { createClientIpResolver } from "../http/http.client-ip.ts";
import { createMetrics } from "../http/http.metrics.ts";
import { createHttpBase } from "../http/http.server.ts";
import { createBus } from "../shared/bus.ts";
import { createSystemClock } from "../shared/clock.ts";
import { loadConfig } from "../shared/config.ts";
import { createIds } from "../shared/ids.ts";
import { createLogger } from "../shared/logger.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createAuthRoom } from "./auth.room.ts";

// The auth room given a PostgreSQL database: its routes, guard and usage flush over a real
// server, with the SQLite database beside it left untouched.
const databases = usePgDatabases();
let pg: PostgresDb | undefined;
let sqlite: TestDb | undefined;
let server: { url: string };
let stop: (() => Promise<unknown>) | undefined;
let flush: () => unknown;

beforeAll(async () => {
  const postgres = await openMigratedPgDatabase(databases);
  pg = postgres;
  sqlite = createTestDb();
  const logger = createLogger({ level: "error", write: () => {} });
  const config = loadConfig({ env: {}, flags: { data_dir: sqlite.dir } }).config;
  const room = createAuthRoom(
    {
      db: sqlite,
      postgres,
      clock: createSystemClock(),
      ids: createIds(),
      logger,
      bus: createBus<DomainEvents>(logger),
      secretKey: crypto.getRandomValues(new Uint8Array(32)),
      config,
    },
    { resolveClientIp: createClientIpResolver(config.trusted_proxies) },
  );
  const flushJob = room.jobs.find((job) => job.name === "auth.api-key-usage-flush");
  if (!flushJob || !room.routes) throw new Error("the auth room lost its usage flush or routes");
  flush = flushJob.run;
  const app = createHttpBase({
    ids: createIds(),
    logger,
    metrics: createMetrics(),
    onAnswered: room.ports.countAnswer,
  }).use(room.routes);
  app.listen({ port: 0, hostname: "127.0.0.1" });
  server = { url: `http://127.0.0.1:${app.server?.port}` };
  stop = () => app.stop();
});
afterAll(async () => {
  await stop?.();
  await pg?.close();
  sqlite?.destroy();
});

test("on PostgreSQL: first run, login, members and an API key whose use is flushed there", async () => {
  const registered = await apiCall(server, "POST", "/api/v1/auth/register", {
    body: { email: "Ops@example.com", password: "a-long-password", organization_name: "Ops" },
  });
  expect(registered.status).toBe(201);
  const owner = { authorization: `Bearer ${registered.body.token}` };
  const orgId: string = registered.body.organization.id;
  expect(registered.body.organization.plan).toBe("enterprise");

  const me = await apiCall(server, "GET", "/api/v1/me", { headers: owner });
  expect(me.body.organization).toMatchObject({ id: orgId, role: "owner" });
  const stranger = await apiCall(server, "GET", "/api/v1/me", {
    headers: { ...owner, "x-organization-id": "someone-elses" },
  });
  expect(stranger.status).toBe(404);

  const added = await apiCall(server, "POST", `/api/v1/organizations/${orgId}/members`, {
    headers: owner,
    body: { email: "dev@example.com", role: "member", password: "dev-password" },
  });
  expect(added.status).toBe(201);
  const login = await apiCall(server, "POST", "/api/v1/auth/login", {
    body: { email: "DEV@example.com", password: "dev-password" },
  });
  expect(login.status).toBe(200);
  expect(login.body.organizations).toMatchObject([{ id: orgId, role: "member" }]);
  const demoteLast = await apiCall(
    server,
    "PATCH",
    `/api/v1/organizations/${orgId}/members/${registered.body.user.id}`,
    {
      headers: owner,
      body: { role: "member" },
    },
  );
  expect(demoteLast.status).toBe(422);

  const created = await apiCall(server, "POST", `/api/v1/organizations/${orgId}/api-keys`, {
    headers: owner,
    body: { name: "ci" },
  });
  expect(created.status).toBe(201);
  const used = await apiCall(server, "GET", "/api/v1/me", {
    headers: { "x-api-key": created.body.key },
  });
  expect(used.body).toMatchObject({ auth_method: "api_key", organization: { id: orgId } });
  await flush();
  const [usage] = await postgresOf(pg).sql`
    SELECT k.last_used_at, d.requests::int AS requests FROM api_keys k
    JOIN api_key_usage_days d ON d.api_key_id = k.id WHERE k.id = ${created.body.id}`;
  expect(usage.last_used_at).not.toBeNull();
  expect(usage.requests).toBe(1);

  const revoked = await apiCall(
    server,
    "DELETE",
    `/api/v1/organizations/${orgId}/api-keys/${created.body.id}`,
    {
      headers: owner,
    },
  );
  expect(revoked.status).toBe(200);
  const refused = await apiCall(server, "GET", "/api/v1/me", {
    headers: { "x-api-key": created.body.key },
  });
  expect(refused.status).toBe(401);

  const stored = (sqlite as TestDb).sqlite
    .query<{ n: number }, []>("SELECT count(*) AS n FROM users")
    .get();
  expect(stored?.n).toBe(0);
  // Three password hashes on a shared machine: more than the default 5 s is not a hang.
}, 30_000);

function postgresOf(db: PostgresDb | undefined): PostgresDb {
  if (!db) throw new Error("no PostgreSQL database: see beforeAll");
  return db;
}
