import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { storedRow } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
let bridgeId: string;
let destinationId: string;

const HTTP = { name: "Orders", type: "http", url: "http://127.0.0.1:9/hook" };
let sourcesNamed = 0;
// Each bridge gets a source of its own: source names are unique in an organization.
const bridgeBody = (destinations: unknown[] = [HTTP]) => ({
  name: "Payments",
  source: { name: `Stripe ${++sourcesNamed}`, type: "webhook" },
  destinations,
});

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", bridgeBody());
  bridgeId = created.body.data.id;
  destinationId = created.body.data.destinations[0].id;
});
afterAll(() => server.stop());

const ROUTES = [
  { method: "GET", path: "/api/v1/bridges", write: false, ok: 200 },
  { method: "POST", path: "/api/v1/bridges", write: true, ok: 201 },
  { method: "GET", path: "/api/v1/bridges/{b}", write: false, ok: 200 },
  { method: "PATCH", path: "/api/v1/bridges/{b}", write: true, ok: 200 },
  { method: "GET", path: "/api/v1/bridges/{b}/destinations", write: false, ok: 200 },
  { method: "POST", path: "/api/v1/bridges/{b}/destinations", write: true, ok: 201 },
  { method: "GET", path: "/api/v1/bridges/{b}/destinations/{d}", write: false, ok: 200 },
  { method: "PATCH", path: "/api/v1/bridges/{b}/destinations/{d}", write: true, ok: 200 },
  {
    method: "POST",
    path: "/api/v1/bridges/{b}/destinations/{d}/rotate-secret",
    write: true,
    ok: 200,
  },
  { method: "DELETE", path: "/api/v1/bridges/{b}/destinations/{d}", write: true, ok: 204 },
  { method: "DELETE", path: "/api/v1/bridges/{b}", write: true, ok: 204 },
] as const;
const fill = (path: string) => path.replace("{b}", bridgeId).replace("{d}", destinationId);
const BODY = { ...bridgeBody(), ...HTTP, status: "paused" };

describe("access", () => {
  test.each(ROUTES)("$method $path without credentials → 401", async (route) => {
    const answer = await callAs(server, null, route.method, fill(route.path), BODY);
    expect([answer.status, answer.body]).toEqual([401, { error: "Invalid or missing API key" }]);
  });
  test.each(ROUTES.filter((r) => r.write))("$method $path as a member → 403", async (route) => {
    const answer = await callAs(server, member, route.method, fill(route.path), BODY);
    expect([answer.status, answer.body]).toEqual([403, { error: "forbidden" }]);
  });
  test.each(ROUTES.filter((r) => !r.write))("$method $path as a member → $ok", async (route) => {
    expect((await callAs(server, member, route.method, fill(route.path))).status).toBe(route.ok);
  });
  test.each(ROUTES.filter((r) => r.path.includes("{b}")))(
    "$method $path of another organization → 404",
    async (route) => {
      const answer = await callAs(server, stranger, route.method, fill(route.path), BODY);
      expect([answer.status, answer.body]).toEqual([404, { error: "not_found" }]);
    },
  );
});

describe("bridges", () => {
  test("create → 201 with its new source, destinations, and each http secret once", async () => {
    const answer = await callAs(
      server,
      owner,
      "POST",
      "/api/v1/bridges",
      bridgeBody([
        {
          ...HTTP,
          headers: { authorization: "Bearer {{TOKEN}}" },
          priority: "high",
          max_retries: 0,
        },
        { name: "Team", type: "slack", webhook_url: "{{SLACK_URL}}" },
        { name: "Bot", type: "telegram", bot_token: "{{BOT}}", chat_id: "42" },
      ]),
    );
    expect(answer.status).toBe(201);
    const bridge = answer.body.data;
    expect(bridge.status).toBe("active");
    const [http, slack, telegram] = bridge.destinations;
    expect(http.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    expect([http.priority, http.max_retries, http.method]).toEqual(["high", 0, "POST"]);
    expect(http.headers).toEqual({ authorization: "Bearer {{TOKEN}}" });
    expect(slack.signing_secret).toBeUndefined();
    expect(slack.webhook_url).toBe("{{SLACK_URL}}");
    expect([telegram.bot_token, telegram.chat_id]).toEqual(["{{BOT}}", "42"]);
    const source = await callAs(server, owner, "GET", `/api/v1/sources/${bridge.source_id}`);
    expect(source.body.data.name).toMatch(/^Stripe \d+$/);
    const read = await callAs(server, owner, "GET", `/api/v1/bridges/${bridge.id}`);
    expect(read.body.data.destinations[0].signing_secret).toBeUndefined();
    expect(read.body.data.destinations[0].headers).toEqual({ authorization: "Bearer {{TOKEN}}" });
    const stored = await storedRow(server, "destinations", http.id);
    expect(stored?.signing_secret).toBeString();
    expect(stored?.signing_secret).not.toContain(http.signing_secret.slice(6));
  });

  test("create on an existing source_id; PATCH pauses and resumes; DELETE removes", async () => {
    const source = await callAs(server, owner, "POST", "/api/v1/sources", { name: "Shop" });
    const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Second",
      source_id: source.body.data.id,
      destinations: [],
    });
    expect([created.status, created.body.data.source_id]).toEqual([201, source.body.data.id]);
    const id = created.body.data.id;
    const paused = await callAs(server, owner, "PATCH", `/api/v1/bridges/${id}`, {
      status: "paused",
    });
    expect(paused.body.data.status).toBe("paused");
    const active = await callAs(server, owner, "PATCH", `/api/v1/bridges/${id}`, {
      status: "active",
    });
    expect(active.body.data.status).toBe("active");
    const list = await callAs(server, owner, "GET", "/api/v1/bridges");
    expect(list.body.data.map((b: { id: string }) => b.id)).toContain(id);
    expect((await callAs(server, owner, "DELETE", `/api/v1/bridges/${id}`)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `/api/v1/bridges/${id}`)).status).toBe(404);
  });

  const INVALID = [
    { name: "no name", body: { ...bridgeBody(), name: "" }, key: "name" },
    { name: "no source", body: { name: "x", destinations: [] }, key: "source" },
    { name: "unknown source_id", body: { name: "x", source_id: "nope" }, key: "source_id" },
    { name: "source without name", body: { ...bridgeBody(), source: {} }, key: "source.name" },
    {
      name: "bad method",
      body: bridgeBody([{ ...HTTP, method: "DELETE" }]),
      key: "destinations[0].method",
    },
    {
      name: "bad url",
      body: bridgeBody([{ ...HTTP, url: "not a url" }]),
      key: "destinations[0].url",
    },
    {
      name: "refused address",
      body: bridgeBody([{ ...HTTP, url: "http://169.254.169.254/latest" }]),
      key: "destinations[0].url",
    },
    {
      name: "refused address in its NAT64 form",
      body: bridgeBody([{ ...HTTP, url: "http://[64:ff9b::a9fe:a9fe]/latest" }]),
      key: "destinations[0].url",
    },
    {
      name: "max_retries 16",
      body: bridgeBody([{ ...HTTP, max_retries: 16 }]),
      key: "destinations[0].max_retries",
    },
    {
      name: "max_retries -1",
      body: bridgeBody([{ ...HTTP, max_retries: -1 }]),
      key: "destinations[0].max_retries",
    },
    {
      name: "bad type",
      body: bridgeBody([{ ...HTTP, type: "email" }]),
      key: "destinations[0].type",
    },
    {
      name: "bad priority",
      body: bridgeBody([{ ...HTTP, priority: "urgent" }]),
      key: "destinations[0].priority",
    },
    {
      name: "unknown transformation",
      body: bridgeBody([{ ...HTTP, transformation_id: "t1" }]),
      key: "destinations[0].transformation_id",
    },
    {
      name: "bad regex filter",
      body: bridgeBody([{ ...HTTP, filters: [{ "body.a": { $regex: "(" } }] }]),
      key: "destinations[0].filters[0]",
    },
    {
      name: "slack without webhook_url",
      body: bridgeBody([{ name: "s", type: "slack" }]),
      key: "destinations[0].webhook_url",
    },
    {
      name: "telegram without chat_id",
      body: bridgeBody([{ name: "t", type: "telegram", bot_token: "x" }]),
      key: "destinations[0].chat_id",
    },
    {
      name: "bad headers",
      body: bridgeBody([{ ...HTTP, headers: { a: 1 } }]),
      key: "destinations[0].headers",
    },
  ];
  test.each(INVALID)("create with $name → 422 naming $key", async ({ body, key }) => {
    const answer = await callAs(server, owner, "POST", "/api/v1/bridges", body);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).some((k) => k.startsWith(key))).toBe(true);
  });

  test("a refused create stores nothing", async () => {
    const before = await callAs(server, owner, "GET", "/api/v1/sources");
    await callAs(server, owner, "POST", "/api/v1/bridges", bridgeBody([{ ...HTTP, url: "x" }]));
    const after = await callAs(server, owner, "GET", "/api/v1/sources");
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  test("PATCH with an unknown status → 422 status", async () => {
    const answer = await callAs(server, owner, "PATCH", `/api/v1/bridges/${bridgeId}`, {
      status: "x",
    });
    expect([answer.status, Object.keys(answer.body.errors)]).toEqual([422, ["status"]]);
  });
});

describe("destinations", () => {
  test("add → 201 with its secret once; get and list never show it; patch; delete", async () => {
    const base = `/api/v1/bridges/${bridgeId}/destinations`;
    const added = await callAs(server, owner, "POST", base, {
      ...HTTP,
      name: "Extra",
      method: "PUT",
    });
    expect(added.status).toBe(201);
    const dest = added.body.data;
    expect(dest.signing_secret).toMatch(/^whsec_/);
    const read = await callAs(server, owner, "GET", `${base}/${dest.id}`);
    expect(read.body.data.signing_secret).toBeUndefined();
    expect(read.body.data.method).toBe("PUT");
    const list = await callAs(server, owner, "GET", base);
    expect(list.body.data.some((d: { signing_secret?: string }) => d.signing_secret)).toBe(false);
    const patched = await callAs(server, owner, "PATCH", `${base}/${dest.id}`, {
      filters: [{ "body.type": { $eq: "paid" } }],
      max_retries: 3,
    });
    expect([patched.status, patched.body.data.max_retries]).toEqual([200, 3]);
    expect(patched.body.data.filters).toEqual([{ "body.type": { $eq: "paid" } }]);
    expect(patched.body.data.url).toBe(HTTP.url);
    const bad = await callAs(server, owner, "PATCH", `${base}/${dest.id}`, {
      filters: [{ "body.a": { $gt: {} } }],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)[0]).toStartWith("filters");
    const retype = await callAs(server, owner, "PATCH", `${base}/${dest.id}`, { type: "slack" });
    expect(retype.status).toBe(422);
    expect((await callAs(server, owner, "DELETE", `${base}/${dest.id}`)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `${base}/${dest.id}`)).status).toBe(404);
  });

  test("rotate-secret → 200 {data: {signing_secret}}, a new one each time", async () => {
    const path = `/api/v1/bridges/${bridgeId}/destinations/${destinationId}/rotate-secret`;
    const first = await callAs(server, owner, "POST", path);
    const second = await callAs(server, owner, "POST", path);
    expect(first.status).toBe(200);
    expect(first.body.data.signing_secret).toMatch(/^whsec_/);
    expect(second.body.data.signing_secret).not.toBe(first.body.data.signing_secret);
  });

  test("a destination of another bridge is a 404 under this one", async () => {
    const other = await callAs(server, owner, "POST", "/api/v1/bridges", bridgeBody());
    const foreign = other.body.data.destinations[0].id;
    const answer = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/bridges/${bridgeId}/destinations/${foreign}`,
    );
    expect(answer.status).toBe(404);
  });
});
