import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PENDING_ON_POSTGRES, PENDING_ROOM_NAMES } from "./rooms.pending.ts";
import { signUp, type TestAccount } from "./test-utils/accounts.ts";
import { apiCall } from "./test-utils/api-call.ts";
import { pollUntil } from "./test-utils/poll.ts";
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

  test("a capture is forwarded through the PostgreSQL outbox, and its forward is listed", async () => {
    const received: string[] = [];
    const sink = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        received.push(await request.text());
        return new Response("ok");
      },
    });
    try {
      const created = await apiCall(server, "POST", "/api/v1/endpoints", {
        headers: owner.headers,
        body: {
          debug_endpoint: { name: "forwarding", forward_url: `http://127.0.0.1:${sink.port}/in` },
        },
      });
      expect(created.status).toBe(201);
      const { id, slug } = created.body.data as { id: string; slug: string };
      const captured = await fetch(`${server.url}/w/${slug}/orders`, {
        method: "POST",
        body: "forward me",
      });
      expect(captured.status).toBe(200);
      const { request_id } = (await captured.json()) as { request_id: string };
      await pollUntil(() => received.includes("forward me"), { what: "the forward to arrive" });
      const listed = await pollUntil(async () => {
        const answer = await apiCall(
          server,
          "GET",
          `/api/v1/endpoints/${id}/requests/${request_id}/forwards`,
          { headers: owner.headers },
        );
        return answer.body.data?.length === 1 && answer;
      });
      expect(listed.status).toBe(200);
      expect(listed.body.data[0]).toMatchObject({ status_code: 200, attempt: 1 });
    } finally {
      sink.stop(true);
    }
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
