import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { handshakeStatus } from "../test-utils/realtime-client.ts";
import { storedRows } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// API keys v2 (decisions.md §15): a key's role, expiry, rate, allowlist and usage. The server
// trusts 127.0.0.1 as a proxy, so a test can speak from any address with X-Forwarded-For.
const UNAUTHORIZED = { error: "Invalid or missing API key" };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let server: TestServer;
let scheduler: ManualScheduler;
let team: TestAccount;
const clock = createFakeClock(Date.UTC(2026, 2, 10, 12));
const keysPath = (account: TestAccount) =>
  `/api/v1/organizations/${account.organizationId}/api-keys`;

beforeAll(async () => {
  scheduler = createManualScheduler();
  server = await startTestServer({
    scheduler,
    clock,
    // Login tokens outlive the days the clock is moved on.
    config: { trusted_proxies: ["127.0.0.1/32"], jwt_ttl: 365 * DAY },
  });
  team = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

async function makeKey(body: Record<string, unknown>, account = team) {
  const answer = await apiCall(server, "POST", keysPath(account), {
    headers: account.headers,
    body: { name: "v2", ...body },
  });
  expect(answer.status).toBe(201);
  return answer.body as { id: string; key: string } & Record<string, unknown>;
}

const withKey = (key: string, from?: string) => ({
  "x-api-key": key,
  ...(from ? { "x-forwarded-for": from } : {}),
});

describe("scopes: a key acts with its role", () => {
  test("a member key reads but cannot write (403 forbidden)", async () => {
    const { key, role } = await makeKey({ role: "member" });
    expect(role).toBe("member");
    const read = await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(key) });
    expect(read.status).toBe(200);
    const write = await apiCall(server, "POST", "/api/v1/endpoints", {
      headers: withKey(key),
      body: { debug_endpoint: { name: "nope" } },
    });
    expect(write.status).toBe(403);
    expect(write.body).toEqual({ error: "forbidden" });
    const me = await apiCall(server, "GET", "/api/v1/me", { headers: withKey(key) });
    expect(me.body.organization.role).toBe("member");
  });

  test("an admin key writes but cannot do owner-only things; an owner key can", async () => {
    const admin = await makeKey({ role: "admin" });
    const write = await apiCall(server, "POST", "/api/v1/endpoints", {
      headers: withKey(admin.key),
      body: { debug_endpoint: { name: "by admin key" } },
    });
    expect(write.status).toBe(201);
    const members = `/api/v1/organizations/${team.organizationId}/members`;
    const denied = await apiCall(server, "GET", members, { headers: withKey(admin.key) });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: "forbidden" });
    const owner = await makeKey({});
    expect(owner.role).toBe("owner");
    const allowed = await apiCall(server, "GET", members, { headers: withKey(owner.key) });
    expect(allowed.status).toBe(200);
  });

  test.each([
    ["role", { role: "superuser" }],
    ["expires_at", { expires_at: "tomorrow-ish" }],
    ["expires_at", { expires_at: "March 7, 2027" }],
    ["expires_at", { expires_at: "2026-03-10T11:00:00Z" }],
    ["rate_limit_per_minute", { rate_limit_per_minute: 0 }],
    ["rate_limit_per_minute", { rate_limit_per_minute: 2.5 }],
    ["allowed_ips", { allowed_ips: ["10.0.0.0/33"] }],
    ["allowed_ips", { allowed_ips: "10.0.0.0/8" }],
    ["allowed_ips", { allowed_ips: [] }],
  ])("a bad %s → 422 naming the field", async (field, body) => {
    const answer = await apiCall(server, "POST", keysPath(team), {
      headers: team.headers,
      body: { name: "bad", ...body },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    expect(Object.keys(answer.body.errors)).toEqual([field]);
  });
});

describe("expiry", () => {
  test("after expires_at the key answers 401 like a revoked one; the list shows it", async () => {
    const expiresAt = new Date(clock.now() + HOUR).toISOString();
    const { id, key, expires_at } = await makeKey({ expires_at: expiresAt });
    expect(expires_at).toBe(expiresAt);
    const before = await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(key) });
    expect(before.status).toBe(200);
    clock.advance(HOUR);
    const after = await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(key) });
    expect(after.status).toBe(401);
    expect(after.body).toEqual(UNAUTHORIZED);
    const listed = await apiCall(server, "GET", keysPath(team), { headers: team.headers });
    expect(listed.body.find((k: { id: string }) => k.id === id).expires_at).toBe(expiresAt);
  });

  test("?expiring_within_days=7 lists only active keys expiring within 7 days", async () => {
    const owner = await signUp(server, { plan: "team" });
    const soon = await makeKey({ name: "soon", expires_at: iso(clock.now() + 3 * DAY) }, owner);
    await makeKey({ name: "later", expires_at: iso(clock.now() + 30 * DAY) }, owner);
    await makeKey({ name: "never" }, owner);
    const revoked = await makeKey({ name: "gone", expires_at: iso(clock.now() + DAY) }, owner);
    await apiCall(server, "DELETE", `${keysPath(owner)}/${revoked.id}`, { headers: owner.headers });
    const answer = await apiCall(server, "GET", `${keysPath(owner)}?expiring_within_days=7`, {
      headers: owner.headers,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.map((k: { id: string }) => k.id)).toEqual([soon.id]);
    const bad = await apiCall(server, "GET", `${keysPath(owner)}?expiring_within_days=-1`, {
      headers: owner.headers,
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["expiring_within_days"]);
  });
});

describe("per-key rate limit", () => {
  test("beyond rate_limit_per_minute: 429 rate_limited with Retry-After; a minute later it works", async () => {
    const { key } = await makeKey({ rate_limit_per_minute: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push(
        (await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(key) })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 429]);
    const limited = await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(key) });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe("rate_limited");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // Another key of the same organization has its own bucket.
    const other = await makeKey({});
    const free = await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(other.key) });
    expect(free.status).toBe(200);
    clock.advance(60_000);
    const later = await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(key) });
    expect(later.status).toBe(200);
  });
});

describe("IP allowlist", () => {
  test("from elsewhere: 401, logged with the key's id and the address, never the key", async () => {
    const { id, key, allowed_ips } = await makeKey({ allowed_ips: ["10.0.0.0/8", "192.0.2.7"] });
    expect(allowed_ips).toEqual(["10.0.0.0/8", "192.0.2.7/32"]);
    const inside = await apiCall(server, "GET", "/api/v1/endpoints", {
      headers: withKey(key, "10.1.2.3"),
    });
    expect(inside.status).toBe(200);
    const single = await apiCall(server, "GET", "/api/v1/endpoints", {
      headers: withKey(key, "192.0.2.7"),
    });
    expect(single.status).toBe(200);
    const outside = await apiCall(server, "GET", "/api/v1/endpoints", {
      headers: withKey(key, "203.0.113.9"),
    });
    expect(outside.status).toBe(401);
    expect(outside.body).toEqual(UNAUTHORIZED);
    // The proxy itself (no X-Forwarded-For) is not in the list either.
    const direct = await apiCall(server, "GET", "/api/v1/endpoints", { headers: withKey(key) });
    expect(direct.status).toBe(401);
    const logged = server.logs.filter((line) => line.includes(id) && line.includes("203.0.113.9"));
    expect(logged.length).toBe(1);
    expect(server.logs.join("\n")).not.toContain(key);
  });
});

describe("live sockets", () => {
  test("a key with an allowlist or past its expiry cannot open one; a plain key can", async () => {
    const plain = await makeKey({});
    const listed = await makeKey({ allowed_ips: ["127.0.0.1"] });
    const expiring = await makeKey({ expires_at: new Date(clock.now() + HOUR).toISOString() });
    const status = (key: string) => handshakeStatus(server.url, `token=${key}&vsn=2.0.0`);
    expect(await status(plain.key)).toBe(101);
    // No address reaches the socket's check, so the allowlist fails closed.
    expect(await status(listed.key)).toBe(403);
    clock.advance(HOUR);
    expect(await status(expiring.key)).toBe(403);
  });
});

describe("usage", () => {
  test("30 days of requests and 4xx answers, flushed or not, with the last client", async () => {
    const owner = await signUp(server, { plan: "team" });
    const { id, key } = await makeKey({ role: "member" }, owner);
    const call = (method: string, path: string, agent: string) =>
      apiCall(server, method, path, {
        headers: { ...withKey(key, "10.9.8.7"), "user-agent": agent },
        body: method === "POST" ? { debug_endpoint: { name: "x" } } : undefined,
      });
    await call("GET", "/api/v1/endpoints", "old/1");
    await call("POST", "/api/v1/endpoints", "old/1"); // 403: a member key cannot write
    // Counted in memory: no request wrote a row; the flush writes them in one go.
    const storedDays = async () =>
      (await storedRows(server, "api_key_usage_days", "api_key_id", id)).length;
    expect(await storedDays()).toBe(0);
    await scheduler.run("auth.api-key-usage-flush");
    expect(await storedDays()).toBe(1);
    clock.advance(DAY);
    await call("GET", "/api/v1/endpoints", "cli/2");
    await call("GET", "/api/v1/endpoints/00000000-0000-7000-8000-000000000000", "cli/2"); // 404
    await call("GET", "/api/v1/endpoints", "cli/2");
    const path = `${keysPath(owner)}/${id}/usage`;
    const answer = await apiCall(server, "GET", path, { headers: owner.headers });
    expect(answer.status).toBe(200);
    const { days, last_ip, last_user_agent } = answer.body.data;
    expect(days).toHaveLength(30);
    const today = iso(clock.now()).slice(0, 10);
    const yesterday = iso(clock.now() - DAY).slice(0, 10);
    expect(days.at(-1)).toEqual({ date: today, requests: 3, errors: 1 });
    expect(days.at(-2)).toEqual({ date: yesterday, requests: 2, errors: 1 });
    expect(days.slice(0, -2).every((d: { requests: number }) => d.requests === 0)).toBe(true);
    expect({ last_ip, last_user_agent }).toEqual({ last_ip: "10.9.8.7", last_user_agent: "cli/2" });
    // Written, the answer is the same.
    await scheduler.run("auth.api-key-usage-flush");
    const again = await apiCall(server, "GET", path, { headers: owner.headers });
    expect(again.body).toEqual(answer.body);
  });

  test("JWT-only, owner-only; another organization's key is a 404", async () => {
    const { id, key } = await makeKey({});
    const path = `${keysPath(team)}/${id}/usage`;
    const byKey = await apiCall(server, "GET", path, { headers: withKey(key) });
    expect(byKey.status).toBe(403);
    expect(byKey.body).toEqual({ error: "jwt_required" });
    const admin = await team.addMember("admin");
    const byAdmin = await apiCall(server, "GET", path, { headers: admin.headers });
    expect(byAdmin.status).toBe(403);
    const other = await signUp(server, { plan: "team" });
    const crossOrg = await apiCall(server, "GET", `${keysPath(other)}/${id}/usage`, {
      headers: other.headers,
    });
    expect(crossOrg.status).toBe(404);
  });
});

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
