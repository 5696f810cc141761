/**
 * Instance-wide bounds of capture (decisions.md §14): the anonymous switch, the live-endpoint
 * and stored-byte caps of anonymous endpoints, and the free-disk guard.
 */
import { describe, expect, test } from "bun:test";
import { apiCall } from "../test-utils/api-call.ts";
import { useCaptureServers } from "../test-utils/capture-server.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { testStore } from "../test-utils/test-store.ts";

const startServer = useCaptureServers();

interface Anonymous {
  id: string;
  slug: string;
  token: string;
}

async function createAnonymous(server: { url: string }): Promise<Anonymous> {
  const answer = await apiCall(server, "POST", "/api/v1/anonymous-endpoints");
  expect(answer.status).toBe(201);
  return answer.body.data;
}

const post = (server: { url: string }, slug: string, body: string | Uint8Array = "{}") =>
  fetch(`${server.url}/w/${slug}`, { method: "POST", body });

describe("WEIR_ANONYMOUS_ENDPOINTS=off", () => {
  test("creating one answers 404 not_found, every time (no rate limit in the way)", async () => {
    const server = await startServer({ config: { anonymous_endpoints: "off" } });
    for (let i = 0; i < 12; i++) {
      const answer = await apiCall(server, "POST", "/api/v1/anonymous-endpoints");
      expect([answer.status, answer.body]).toEqual([404, { error: "not_found" }]);
    }
  });

  test("existing anonymous endpoints answer 404 at their capture URLs and to their token", async () => {
    const server = await startServer();
    const anonymous = await createAnonymous(server);
    expect((await post(server, anonymous.slug)).status).toBe(200);
    const organizations = await server.endpoint();

    server.deps.config.anonymous_endpoints = "off";
    const refused = await post(server, anonymous.slug);
    expect([refused.status, await refused.json()]).toEqual([404, { error: "not_found" }]);
    const read = await apiCall(server, "GET", `/api/v1/anonymous-endpoints/${anonymous.id}`, {
      headers: { "x-anonymous-token": anonymous.token },
    });
    expect(read.status).toBe(404);
    expect((await post(server, organizations.slug)).status).toBe(200);
    expect(await server.stored(anonymous.id)).toHaveLength(1);
  });
});

describe("anonymous caps for the whole instance", () => {
  test("live anonymous endpoints past WEIR_ANONYMOUS_MAX_ENDPOINTS: 503 anonymous_capacity_reached", async () => {
    const server = await startServer({ config: { anonymous_max_endpoints: 2 } });
    await createAnonymous(server);
    await createAnonymous(server);
    const third = await apiCall(server, "POST", "/api/v1/anonymous-endpoints");
    expect([third.status, third.body]).toEqual([503, { error: "anonymous_capacity_reached" }]);
  });

  test("stored bytes past WEIR_ANONYMOUS_MAX_BYTES: their captures answer 503; organizations' do not", async () => {
    const server = await startServer({ config: { anonymous_max_bytes: 1_048_576 } });
    const first = await createAnonymous(server);
    const second = await createAnonymous(server);
    const chunk = new Uint8Array(600 * 1024);
    expect((await post(server, first.slug, chunk)).status).toBe(200);
    expect((await post(server, second.slug, chunk)).status).toBe(200);
    for (const slug of [first.slug, second.slug]) {
      const refused = await post(server, slug, "small");
      expect([refused.status, await refused.json()]).toEqual([
        503,
        { error: "anonymous_capacity_reached" },
      ]);
    }
    expect(await server.stored(first.id)).toHaveLength(1);
    expect((await post(server, (await server.endpoint()).slug, chunk)).status).toBe(200);
  });
});

describe("free-disk guard", () => {
  // The guard watches the data dir, where a SQLite node keeps its data; a node on PostgreSQL keeps
  // none there and never refuses for it (src/shared/disk-guard.postgres.test.ts).
  test.skipIf(testStore() === "postgres")(
    "below min_free_disk_mb captures answer 507 and store nothing, /healthz says so, a log line names the data dir; above it again, captures resume",
    async () => {
      // A petabyte: more than the real free space of any disk here, so the real statfs says low.
      const server = await startServer({ config: { min_free_disk_mb: 1024 ** 3 } });
      const endpoint = await server.endpoint();
      const refused = await post(server, endpoint.slug);
      expect([refused.status, await refused.json()]).toEqual([
        507,
        { error: "insufficient_storage" },
      ]);
      expect(refused.headers.get("content-security-policy")).toBe("sandbox");
      expect(await server.stored(endpoint.id)).toHaveLength(0);

      const health = await server.request("/healthz");
      expect([health.status, await health.json()]).toEqual([
        503,
        { error: "insufficient_storage" },
      ]);
      const logged = server.logs
        .map((line) => JSON.parse(line))
        .find((entry) => entry.scope === "disk" && entry.level === "error");
      expect(logged?.data_dir).toBe(server.dataDir);

      // The minimum is read at each sample (every 5 s): lowered, captures are taken again.
      server.deps.config.min_free_disk_mb = 0;
      await pollUntil(async () => (await post(server, endpoint.slug)).status === 200, {
        timeoutMs: 15_000,
        intervalMs: 200,
        what: "captures accepted once free space is above the minimum",
      });
      expect((await server.request("/healthz")).status).toBe(200);
    },
  );
});
