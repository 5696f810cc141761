import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { authStoreOf, signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { everyStoredRow, storedRow } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const UNAUTHORIZED = { error: "Invalid or missing API key" };
const PLAN_FORBIDDEN = { error: "Your plan does not have access to this feature" };

let server: TestServer;
let scheduler: ManualScheduler;
let team: TestAccount;
let free: TestAccount;
const clock = createFakeClock();
const keysPath = (account: TestAccount) =>
  `/api/v1/organizations/${account.organizationId}/api-keys`;

beforeAll(async () => {
  scheduler = createManualScheduler();
  server = await startTestServer({ scheduler, clock });
  team = await signUp(server, { plan: "team" });
  free = await signUp(server, { plan: "free" });
});
afterAll(() => server.stop());

describe("create, list, revoke (interface.md: API keys)", () => {
  test("create answers 201 with the key once; list never shows it; only a hash is stored", async () => {
    const created = await apiCall(server, "POST", keysPath(team), {
      headers: team.headers,
      body: { name: "ci" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: "ci",
      key: expect.stringMatching(/^svc_[0-9A-Za-z]{32}$/),
      created_at: expect.any(String),
      last_used_at: null,
      revoked_at: null,
      // Keys v2 (decisions.md §15): without limits, a key is today's owner key.
      role: "owner",
      expires_at: null,
      rate_limit_per_minute: null,
      allowed_ips: null,
    });
    const listed = await apiCall(server, "GET", keysPath(team), { headers: team.headers });
    expect(listed.status).toBe(200);
    const row = listed.body.find((k: { id: string }) => k.id === created.body.id);
    expect(row).toEqual({ ...created.body, key: undefined });
    expect(Object.keys(row)).not.toContain("key");
    const stored = await storedRow(server, "api_keys", created.body.id);
    expect(stored?.key_hash).toBe(
      new Bun.CryptoHasher("sha256").update(created.body.key).digest("hex"),
    );
    const everyKey = await everyStoredRow(server, "api_keys");
    expect(JSON.stringify(everyKey)).not.toContain(created.body.key);
  });

  test.each([
    ["no body", undefined],
    ["no name", {}],
    ["an empty name", { name: "  " }],
    ["a non-text name", { name: 42 }],
  ])("create with %s → 400 name is required", async (_, body) => {
    const answer = await apiCall(server, "POST", keysPath(team), { headers: team.headers, body });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: "name is required" });
  });

  test("the free plan gets the plan message", async () => {
    const answer = await apiCall(server, "POST", keysPath(free), {
      headers: free.headers,
      body: { name: "x" },
    });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual(PLAN_FORBIDDEN);
  });

  test("revoke answers 200 {message}; again or unknown → 404 API key not found", async () => {
    const created = await apiCall(server, "POST", keysPath(team), {
      headers: team.headers,
      body: { name: "old" },
    });
    const path = `${keysPath(team)}/${created.body.id}`;
    const revoked = await apiCall(server, "DELETE", path, { headers: team.headers });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ message: expect.any(String) });
    for (const target of [path, `${keysPath(team)}/00000000-0000-7000-8000-000000000000`]) {
      const again = await apiCall(server, "DELETE", target, { headers: team.headers });
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ error: "API key not found" });
    }
    const listed = await apiCall(server, "GET", keysPath(team), { headers: team.headers });
    expect(listed.body.find((k: { id: string }) => k.id === created.body.id).revoked_at).toEqual(
      expect.any(String),
    );
  });
});

describe("who may manage keys", () => {
  test.each([
    ["Authorization: Bearer svc_…", (key: string) => ({ authorization: `Bearer ${key}` })],
    ["X-API-Key", (key: string) => ({ "x-api-key": key })],
  ])("an API key in %s → 403 jwt_required for create, list and revoke", async (_, header) => {
    const key = await team.createApiKey();
    for (const [method, path] of [
      ["POST", keysPath(team)],
      ["GET", keysPath(team)],
      ["DELETE", `${keysPath(team)}/whatever`],
    ] as const) {
      const answer = await apiCall(server, method, path, {
        headers: header(key),
        body: { name: "x" },
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ error: "jwt_required" });
    }
  });

  test.each(["admin", "member"] as const)("an %s → 403 forbidden", async (role) => {
    const person = await team.addMember(role);
    for (const method of ["POST", "GET"] as const) {
      const answer = await apiCall(server, method, keysPath(team), {
        headers: person.headers,
        body: { name: "x" },
      });
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ error: "forbidden" });
    }
  });

  test("another organization's keys are a 404, by path and by key id", async () => {
    const other = await signUp(server, { plan: "enterprise" });
    const otherKey = await apiCall(server, "POST", keysPath(other), {
      headers: other.headers,
      body: { name: "theirs" },
    });
    const answers = [
      await apiCall(server, "GET", keysPath(other), { headers: team.headers }),
      await apiCall(server, "POST", keysPath(other), {
        headers: team.headers,
        body: { name: "x" },
      }),
      await apiCall(server, "DELETE", `${keysPath(team)}/${otherKey.body.id}`, {
        headers: team.headers,
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404]);
    const still = await apiCall(server, "GET", "/api/v1/me", {
      headers: { "x-api-key": otherKey.body.key },
    });
    expect(still.status).toBe(200);
  });
});

describe("the guard (interface.md Authentication)", () => {
  test("both headers act identically, as owner of the key's organization", async () => {
    const key = await team.createApiKey();
    const viaBearer = await apiCall(server, "GET", "/api/v1/me", {
      headers: { authorization: `Bearer ${key}` },
    });
    const viaHeader = await apiCall(server, "GET", "/api/v1/me", { headers: { "x-api-key": key } });
    expect(viaBearer.status).toBe(200);
    expect(viaBearer.body).toEqual(viaHeader.body);
    expect(viaBearer.body).toMatchObject({
      auth_method: "api_key",
      user: null,
      organization: { id: team.organizationId, role: "owner" },
    });
  });

  test("a Bearer svc_ key wins over a JWT in X-API-Key order; a bad Bearer key is not rescued", async () => {
    const key = await team.createApiKey();
    const good = await apiCall(server, "GET", "/api/v1/me", {
      headers: { authorization: `Bearer ${key}`, "x-api-key": "svc_wrong" },
    });
    expect(good.body.auth_method).toBe("api_key");
    const bad = await apiCall(server, "GET", "/api/v1/me", {
      headers: { authorization: "Bearer svc_wrong", "x-api-key": key },
    });
    expect(bad.status).toBe(401);
  });

  const kinds: [string, () => Promise<Record<string, string>>][] = [
    ["no credentials", async () => ({})],
    ["an empty Authorization", async () => ({ authorization: "" })],
    ["Basic auth", async () => ({ authorization: "Basic dXNlcjpwYXNz" })],
    ["Bearer without a value", async () => ({ authorization: "Bearer " })],
    ["a key of the wrong length", async () => ({ "x-api-key": "svc_short" })],
    [
      "a key without the prefix",
      async () => ({ "x-api-key": "abc_0123456789012345678901234567890" }),
    ],
    ["an unknown key", async () => ({ "x-api-key": `svc_${"A".repeat(32)}` })],
    ["a garbage JWT", async () => ({ authorization: "Bearer not.a.jwt" })],
    [
      "a JWT with a forged signature",
      async () => ({ authorization: `${team.headers.authorization}x` }),
    ],
    [
      "a revoked key",
      async () => {
        const key = await team.createApiKey("to revoke");
        const list = await apiCall(server, "GET", keysPath(team), { headers: team.headers });
        const id = list.body.find((k: { name: string }) => k.name === "to revoke").id;
        await apiCall(server, "DELETE", `${keysPath(team)}/${id}`, { headers: team.headers });
        return { "x-api-key": key };
      },
    ],
  ];
  test.each(kinds)("%s → 401 with the one message", async (_, headers) => {
    const answer = await apiCall(server, "GET", "/api/v1/me", { headers: await headers() });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(UNAUTHORIZED);
  });

  test("a revoked key stops working at once", async () => {
    const created = await apiCall(server, "POST", keysPath(team), {
      headers: team.headers,
      body: { name: "live" },
    });
    const headers = { authorization: `Bearer ${created.body.key}` };
    expect((await apiCall(server, "GET", "/api/v1/me", { headers })).status).toBe(200);
    await apiCall(server, "DELETE", `${keysPath(team)}/${created.body.id}`, {
      headers: team.headers,
    });
    expect((await apiCall(server, "GET", "/api/v1/me", { headers })).status).toBe(401);
  });

  test("last_used_at shows in the list as soon as the key was used, and is written in batches", async () => {
    const created = await apiCall(server, "POST", keysPath(team), {
      headers: team.headers,
      body: { name: "used" },
    });
    const listed = async () =>
      (await apiCall(server, "GET", keysPath(team), { headers: team.headers })).body.find(
        (k: { id: string }) => k.id === created.body.id,
      ).last_used_at;
    const stored = async () => (await storedRow(server, "api_keys", created.body.id))?.last_used_at;
    clock.advance(1_000);
    const usedAt = new Date(clock.now()).toISOString();
    await apiCall(server, "GET", "/api/v1/me", { headers: { "x-api-key": created.body.key } });
    // Read your own writes: the list shows the use before the row is written.
    expect(await stored()).toBeNull();
    expect(await listed()).toBe(usedAt);
    await scheduler.run("auth.api-key-usage-flush");
    expect(await stored()).toBe(usedAt);
    expect(await listed()).toBe(usedAt);
  });
});

describe("a plan without API keys (decisions.md §14)", () => {
  test("keys of an organization moved to free answer 403 with the plan message, and work again on team", async () => {
    const owner = await signUp(server, { plan: "team" });
    const key = await owner.createApiKey("downgraded");
    const me = () => apiCall(server, "GET", "/api/v1/me", { headers: { "x-api-key": key } });
    expect((await me()).status).toBe(200);
    const setPlan = (plan: "free" | "team") =>
      authStoreOf(server).setPlan(owner.organizationId, plan, new Date().toISOString());
    await setPlan("free");
    const refused = await me();
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(PLAN_FORBIDDEN);
    const bearer = await apiCall(server, "GET", "/api/v1/endpoints", {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(bearer.status).toBe(403);
    expect(bearer.body).toEqual(PLAN_FORBIDDEN);
    await setPlan("team");
    expect((await me()).status).toBe(200);
  });
});
