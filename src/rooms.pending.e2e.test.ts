import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PENDING_ON_POSTGRES, PENDING_ROOM_NAMES } from "./rooms.pending.ts";
import { signUp, type TestAccount } from "./test-utils/accounts.ts";
import { apiCall } from "./test-utils/api-call.ts";
import { usePgDatabases } from "./test-utils/postgres.ts";
import { startTestServer, type TestServer } from "./test-utils/test-server.ts";

const databases = usePgDatabases();
let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  const db = await databases.create();
  server = await startTestServer({ config: { database_url: db.url } });
  owner = await signUp(server);
});

afterAll(async () => {
  await server?.stop();
});

/** A concrete path under each pending room's paths (`:param` filled in, a sub-path added). */
const concrete = (path: string) => `${path.replaceAll(/:[a-z_]+/g, "x1")}/more`;

describe("rooms that do not run on PostgreSQL yet", () => {
  test("the app runs on PostgreSQL: no SQLite database is open", () => {
    expect(server.store).toBe("postgres");
    expect(server.deps.db).toBeUndefined();
  });

  test.each(
    PENDING_ROOM_NAMES.flatMap((room) =>
      PENDING_ON_POSTGRES[room].flatMap((path) => [
        { room, method: "GET", path },
        { room, method: "POST", path: concrete(path) },
      ]),
    ),
  )("$method $path answers 501 naming $room", async ({ room, method, path }) => {
    const answer = await apiCall(server, method, path.replaceAll(/:[a-z_]+/g, "x1"), {
      headers: owner.headers,
      ...(method === "POST" ? { body: {} } : {}),
    });
    expect(answer.status).toBe(501);
    expect(answer.body).toEqual({
      error: "not_available_on_postgres",
      message: `${room} does not run on PostgreSQL yet: run Weir on SQLite to use it`,
    });
  });

  test("an endpoint cannot be given a forward_url: 422 naming the field", async () => {
    const answer = await apiCall(server, "POST", "/api/v1/endpoints", {
      headers: owner.headers,
      body: { debug_endpoint: { name: "forwarding", forward_url: "https://example.com/hook" } },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.forward_url).toEqual([
      "delivery does not run on PostgreSQL yet: run Weir on SQLite to use it",
    ]);
  });

  test("the rooms that do run answer as usual, and /healthz pings PostgreSQL", async () => {
    const created = await apiCall(server, "POST", "/api/v1/endpoints", {
      headers: owner.headers,
      body: { debug_endpoint: { name: "plain" } },
    });
    expect(created.status).toBe(201);
    const health = await apiCall(server, "GET", "/healthz");
    expect(health.status).toBe(200);
    const metrics = await fetch(`${server.url}/metrics`);
    expect(await metrics.text()).toContain("\nweir_cluster_leader ");
  });
});
