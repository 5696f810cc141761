import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAuthRoom } from "../auth/auth.room.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { type AppDeps, closeDeps, createDeps } from "../deps.ts";
import { createClientIpResolver } from "../http/http.client-ip.ts";
import { createMetrics } from "../http/http.metrics.ts";
import { createHttpBase } from "../http/http.server.ts";
import type { Room } from "../room.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import type { EndpointsPorts } from "./endpoints.room.ts";
import { createEndpointsRoom } from "./endpoints.room.ts";

// The endpoints room given a PostgreSQL database keeps its endpoints there, behind the same
// routes and ports; the other rooms of this server (auth here) stay on SQLite.
const databases = usePgDatabases();
const dir = makeTempDir("weir-endpoints-pg-");
let deps: AppDeps;
let postgres: PostgresDb;
let room: Room<EndpointsPorts>;
let server: { url: string; stop(): Promise<void> };
let owner: TestAccount;

beforeAll(async () => {
  const config = loadConfig({ env: {}, flags: { data_dir: dir.path } }).config;
  deps = await createDeps(
    { ...config, durability: "normal" },
    { logger: createLogger({ level: "error", write: () => {} }) },
  );
  postgres = await openMigratedPgDatabase(databases);
  const { sql } = postgres;
  const resolveClientIp = createClientIpResolver(deps.config.trusted_proxies);
  const auth = createAuthRoom(deps, { resolveClientIp });
  room = createEndpointsRoom({ ...deps, postgres }, { guard: auth.ports.guard, resolveClientIp });
  const app = createHttpBase({ ids: deps.ids, logger: deps.logger, metrics: createMetrics() })
    .use(room.routes ?? undefined)
    .listen({ port: 0, hostname: "127.0.0.1" });
  server = {
    url: `http://127.0.0.1:${app.server?.port}`,
    stop: async () => {
      await app.stop();
    },
  };
  owner = await signUp({ deps });
  // Organizations are the auth room's, on SQLite here: the endpoints' foreign key needs the row.
  await sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES (${owner.organizationId}, 'org', 'team', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`;
});
afterAll(async () => {
  await server.stop();
  await postgres.close();
  closeDeps(deps);
  dir.remove();
});

const storedIn = async (id: string) => ({
  postgres: (await postgres.sql`SELECT 1 FROM debug_endpoints WHERE id = ${id}`).length,
  sqlite: deps.db.sqlite.query("SELECT 1 FROM debug_endpoints WHERE id = ?").all(id).length,
});

describe("the endpoints room on PostgreSQL", () => {
  test("both families create, list, read, update and delete endpoints stored in PostgreSQL", async () => {
    const call = (method: string, path: string, body?: unknown) =>
      apiCall(server, method, path, { headers: owner.headers, body });
    const created = await call("POST", "/api/v1/debug-endpoints", {
      debug_endpoint: { name: "On PG", slug: "on-pg" },
    });
    expect([created.status, created.body.slug, created.body.request_count]).toEqual([
      201,
      "on-pg",
      0,
    ]);
    const id = created.body.id as string;
    expect(await storedIn(id)).toEqual({ postgres: 1, sqlite: 0 });
    const clash = await call("POST", "/api/v1/endpoints", {
      debug_endpoint: { name: "x", slug: "on-pg" },
    });
    expect([clash.status, clash.body.error]).toEqual([409, "slug_taken"]);
    const listed = await call("GET", "/api/v1/endpoints");
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([id]);
    const renamed = await call("PATCH", `/api/v1/debug-endpoints/${id}`, {
      debug_endpoint: { name: "Renamed" },
    });
    expect([renamed.status, renamed.body.name]).toEqual([200, "Renamed"]);
    expect((await call("DELETE", `/api/v1/debug-endpoints/${id}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/debug-endpoints/${id}`)).status).toBe(404);
    expect(await room.ports.listDraining(10)).toContainEqual({
      endpointId: id,
      deleted: true,
      clearedThroughId: null,
    });
  });

  test("anonymous endpoints are created and opened by their token", async () => {
    const created = await apiCall(server, "POST", "/api/v1/anonymous-endpoints");
    expect(created.status).toBe(201);
    const { id, token } = created.body.data;
    expect(await storedIn(id)).toEqual({ postgres: 1, sqlite: 0 });
    const read = await apiCall(server, "GET", `/api/v1/anonymous-endpoints/${id}`, {
      headers: { "x-anonymous-token": token },
    });
    expect([read.status, read.body.data.request_count]).toEqual([200, 0]);
    expect((await room.ports.requireAnonymousEndpoint({ id, token })).id).toBe(id);
    await expect(room.ports.requireAnonymousEndpoint({ id, token: "wrong" })).rejects.toThrow();
  });

  test("the ports read PostgreSQL, and a drain ends in a PostgreSQL transaction", async () => {
    const created = await apiCall(server, "POST", "/api/v1/endpoints", {
      headers: owner.headers,
      body: { debug_endpoint: { name: "Drained" } },
    });
    const id = created.body.data.id as string;
    expect((await room.ports.requireEndpoint(owner.organizationId, id)).id).toBe(id);
    await expect(room.ports.requireEndpoint("another-org", id)).rejects.toMatchObject({
      status: 404,
    });
    expect(await room.ports.findEndpoint("another-org", id)).toBeNull();
    expect((await room.ports.findEndpointById(id))?.id).toBe(id);
    expect(await room.ports.clearRequests(id)).toBe(true);
    const draining = (await room.ports.listDraining(100)).find((d) => d.endpointId === id);
    expect(draining?.deleted).toBe(false);
    if (!draining) throw new Error("not draining");
    expect(() => deps.db.tx((tx) => room.ports.finishDrain(tx, draining))).toThrow(/SQLite/);
    await postgres.sql.begin((tx) => room.ports.finishDrainOnPostgres(tx, draining));
    expect((await room.ports.listDraining(100)).map((d) => d.endpointId)).not.toContain(id);
  });
});
