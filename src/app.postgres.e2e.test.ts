import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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

describe("every room on PostgreSQL", () => {
  test("the app runs on PostgreSQL: no SQLite database is open", () => {
    expect(server.store).toBe("postgres");
    expect(server.deps.db).toBeUndefined();
  });

  test.each([
    "/api/v1/endpoints",
    "/api/v1/sources",
    "/api/v1/bridges",
    "/api/v1/events",
    "/api/v1/issues",
    "/api/v1/alert-rules",
    "/api/v1/uptime-monitors",
    "/api/v1/maintenance-windows",
    "/api/v1/status-pages",
    "/api/v1/secrets",
    "/api/v1/transformations",
  ])("GET %s answers 200 from PostgreSQL", async (path) => {
    const answer = await apiCall(server, "GET", path, { headers: owner.headers });
    expect(answer.status).toBe(200);
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

  test("an endpoint is created as usual, and /healthz pings PostgreSQL", async () => {
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
