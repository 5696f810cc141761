import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let sink: HttpSink;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
const PATH = "/api/v1/uptime-monitors";

beforeAll(async () => {
  sink = startHttpSink();
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const httpMonitor = (extra: Record<string, unknown> = {}) => ({
  name: "API",
  type: "http",
  url: `${sink.url}/health`,
  interval_seconds: 60,
  ...extra,
});

describe("uptime monitors CRUD", () => {
  test("create answers 201 {data} with defaults and the figures; get, list, PUT, DELETE follow", async () => {
    const created = await callAs(server, owner, "POST", PATH, httpMonitor({ retries: 2 }));
    expect(created.status).toBe(201);
    const monitor = created.body.data;
    expect(monitor).toMatchObject({
      name: "API",
      type: "http",
      method: "GET",
      interval_seconds: 60,
      timeout_seconds: 30,
      expected_status: "200-299",
      retries: 2,
      paused: false,
      last_checked_at: null,
      uptime_24h: null,
      uptime_7d: null,
      uptime_30d: null,
      uptime_90d: null,
      avg_response_ms: null,
    });
    expect(["pending", "up"]).toContain(monitor.status);

    const got = await callAs(server, member, "GET", `${PATH}/${monitor.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.id).toBe(monitor.id);
    const list = await callAs(server, member, "GET", PATH);
    expect(list.body.data.map((m: { id: string }) => m.id)).toContain(monitor.id);
    expect(list.body).toMatchObject({ page: 1, page_size: 20 });

    const put = await callAs(server, owner, "PUT", `${PATH}/${monitor.id}`, {
      name: "API v2",
      expected_status: "200-299,301",
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ name: "API v2", expected_status: "200-299,301" });

    const paused = await callAs(server, owner, "PATCH", `${PATH}/${monitor.id}`, { paused: true });
    expect(paused.body.data).toMatchObject({ paused: true, status: "paused" });

    expect((await callAs(server, owner, "DELETE", `${PATH}/${monitor.id}`)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `${PATH}/${monitor.id}`)).status).toBe(404);
  });

  test.each([
    ["interval_seconds", () => httpMonitor({ interval_seconds: 5 })],
    ["url", () => httpMonitor({ url: "not a url" })],
    ["url", () => httpMonitor({ url: "ftp://example.com/" })],
    ["expected_status", () => httpMonitor({ expected_status: "abc" })],
    ["expected_status", () => httpMonitor({ expected_status: "200-99" })],
    ["type", () => httpMonitor({ type: "smoke-signal" })],
    ["name", () => httpMonitor({ name: "" })],
    ["url", () => ({ name: "db", type: "tcp", url: "tcp://db.lan" })],
    ["url", () => ({ name: "db", type: "tcp", url: "http://db.lan:5432" })],
    ["hostname", () => ({ name: "dns", type: "dns", hostname: "not a host!" })],
    [
      "record_type",
      () => ({ name: "dns", type: "dns", hostname: "example.com", record_type: "SOA" }),
    ],
    ["json_expected", () => httpMonitor({ json_path: "status", json_expected: { $gt: {} } })],
    ["json_expected", () => httpMonitor({ json_path: "status" })],
    ["url", () => httpMonitor({ url: "http://169.254.169.254/latest" })],
    ["interval_seconds", () => httpMonitor({ interval_seconds: "often" })],
    ["body", () => httpMonitor({ method: "POST", body: "x".repeat(70_000) })],
    ["headers", () => httpMonitor({ headers: { "x-n": 5 } })],
    ["url", () => httpMonitor({ url: `https://example.com/${"a".repeat(2100)}` })],
    ["keyword", () => httpMonitor({ keyword: "" })],
  ] as [string, () => unknown][])("422 naming %s", async (field, body) => {
    const answer = await callAs(server, owner, "POST", PATH, body());
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    // A nested field is named by its path (headers.x-n).
    const named = Object.keys(answer.body.errors).map((key) => key.split(".")[0]);
    expect(named).toContain(field);
  });

  test("a tcp, a dns and a push monitor are accepted; the push monitor carries its push_url", async () => {
    const tcp = await callAs(server, owner, "POST", PATH, {
      name: "db",
      type: "tcp",
      url: "tcp://127.0.0.1:5432",
    });
    expect(tcp.status).toBe(201);
    const dns = await callAs(server, owner, "POST", PATH, {
      name: "dns",
      type: "dns",
      hostname: "example.com",
      record_type: "MX",
      expected: "mail.example.com",
    });
    expect(dns.status).toBe(201);
    expect(dns.body.data).toMatchObject({ hostname: "example.com", record_type: "MX" });
    const push = await callAs(server, owner, "POST", PATH, { name: "backup", type: "push" });
    expect(push.status).toBe(201);
    expect(push.body.data.status).toBe("pending");
    expect(push.body.data.push_url).toMatch(/\/api\/push\/[A-Za-z0-9]{32}$/);
    for (const id of [tcp.body.data.id, dns.body.data.id, push.body.data.id]) {
      await callAs(server, owner, "DELETE", `${PATH}/${id}`);
    }
  });

  test("a monitor turned into a push monitor gets a push URL; turned back, it loses it", async () => {
    const created = await callAs(server, owner, "POST", PATH, httpMonitor({ paused: true }));
    const id = created.body.data.id;
    expect(created.body.data.push_url).toBeUndefined();
    const push = await callAs(server, owner, "PATCH", `${PATH}/${id}`, { type: "push" });
    expect(push.body.data.push_url).toMatch(/\/api\/push\/[A-Za-z0-9]{32}$/);
    const path = new URL(push.body.data.push_url).pathname;
    expect((await server.request(path)).status).toBe(200);
    const back = await callAs(server, owner, "PATCH", `${PATH}/${id}`, {
      type: "http",
      url: `${sink.url}/health`,
    });
    expect(back.body.data.push_url).toBeUndefined();
    expect((await server.request(path)).status).toBe(404);
    await callAs(server, owner, "DELETE", `${PATH}/${id}`);
  });

  test("secrets stay {{NAME}} in the URL and headers as saved", async () => {
    const created = await callAs(
      server,
      owner,
      "POST",
      PATH,
      httpMonitor({
        url: `${sink.url}/health?key={{HEALTH_KEY}}`,
        headers: { authorization: "Bearer {{HEALTH_TOKEN}}" },
        paused: true,
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body.data.url).toContain("{{HEALTH_KEY}}");
    expect(created.body.data.headers).toEqual({ authorization: "Bearer {{HEALTH_TOKEN}}" });
    await callAs(server, owner, "DELETE", `${PATH}/${created.body.data.id}`);
  });

  test("members read but do not write; another organization's monitor is 404", async () => {
    const created = await callAs(server, owner, "POST", PATH, httpMonitor({ paused: true }));
    const id = created.body.data.id;
    expect((await callAs(server, member, "POST", PATH, httpMonitor())).status).toBe(403);
    const badBody = httpMonitor({ interval_seconds: "often" });
    expect((await callAs(server, member, "POST", PATH, badBody)).status).toBe(403);
    expect((await callAs(server, member, "PUT", `${PATH}/${id}`, badBody)).status).toBe(403);
    expect((await callAs(server, member, "PATCH", `${PATH}/${id}`, { paused: false })).status).toBe(
      403,
    );
    expect((await callAs(server, member, "DELETE", `${PATH}/${id}`)).status).toBe(403);
    expect((await callAs(server, member, "POST", `${PATH}/${id}/check`)).status).toBe(403);
    for (const [method, path] of [
      ["GET", `${PATH}/${id}`],
      ["PATCH", `${PATH}/${id}`],
      ["DELETE", `${PATH}/${id}`],
      ["GET", `${PATH}/${id}/checks`],
      ["GET", `${PATH}/${id}/events`],
      ["POST", `${PATH}/${id}/check`],
    ] as const) {
      const answer = await callAs(server, stranger, method, path, { paused: true });
      expect(answer.status).toBe(404);
    }
    expect((await callAs(server, null, "GET", PATH)).status).toBe(401);
    await callAs(server, owner, "DELETE", `${PATH}/${id}`);
  });

  test("the free plan holds 5 monitors: the sixth is 403 monitor_limit_reached", async () => {
    const free = await signUp(server, { plan: "free" });
    for (let i = 0; i < 5; i++) {
      const answer = await callAs(server, free, "POST", PATH, httpMonitor({ paused: true }));
      expect(answer.status).toBe(201);
    }
    const sixth = await callAs(server, free, "POST", PATH, httpMonitor({ paused: true }));
    expect(sixth.status).toBe(403);
    expect(sixth.body.error).toBe("monitor_limit_reached");
  });
});
