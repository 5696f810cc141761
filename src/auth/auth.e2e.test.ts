import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RIGHTS_RECHECK_JOB } from "../realtime/realtime.room.ts";
import { DEFAULT_PLANS, parsePlanTable } from "../shared/plans.ts";
import { signUp } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { connectSocket, subscribe } from "../test-utils/realtime-client.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const register = (server: TestServer, body: unknown) =>
  apiCall(server, "POST", "/api/v1/auth/register", { body });
const login = (server: TestServer, email: string, password: string) =>
  apiCall(server, "POST", "/api/v1/auth/login", { body: { email, password } });
const owner = {
  email: "Owner@Example.com",
  password: "s3cret-password",
  organization_name: "Acme",
};

describe("first run, registration and login", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  test("the first user registers; the organization is enterprise; the password is never echoed", async () => {
    expect((await apiCall(server, "GET", "/api/v1/auth/setup")).body).toEqual({
      needs_setup: true,
      registration: "closed",
      anonymous_endpoints: "on",
    });
    const answer = await register(server, owner);
    expect(answer.status).toBe(201);
    expect(answer.body.user).toEqual({
      id: expect.any(String),
      email: owner.email,
      created_at: expect.any(String),
    });
    expect(answer.body.organization).toMatchObject({ name: "Acme", plan: "enterprise" });
    expect(answer.body.token.split(".")).toHaveLength(3);
    expect(JSON.stringify(answer.body)).not.toContain(owner.password);
    expect(server.logs.join("\n")).not.toContain(owner.password);
    expect((await apiCall(server, "GET", "/api/v1/auth/setup")).body.needs_setup).toBe(false);
  });

  test("after the first user, registration is closed", async () => {
    const answer = await register(server, { ...owner, email: "second@example.com" });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: "registration_closed" });
  });

  test("login answers a token, its expiry and the organizations, whatever the email's case", async () => {
    const answer = await login(server, "owner@EXAMPLE.com", owner.password);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      token: expect.any(String),
      expires_at: expect.any(String),
      user: { id: expect.any(String), email: owner.email },
      organizations: [
        {
          id: expect.any(String),
          name: "Acme",
          role: "owner",
          plan: "enterprise",
          limits: DEFAULT_PLANS.enterprise,
        },
      ],
    });
    const hours = (Date.parse(answer.body.expires_at) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    const me = await apiCall(server, "GET", "/api/v1/me", {
      headers: { authorization: `Bearer ${answer.body.token}` },
    });
    expect(me.body).toMatchObject({ auth_method: "jwt", user: { email: owner.email } });
    expect(JSON.stringify(me.body)).not.toContain("password");
  });

  test("a wrong password and an unknown email get the same 401", async () => {
    const wrong = await login(server, owner.email, "not-the-password");
    const unknown = await login(server, "nobody@example.com", owner.password);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ error: "Invalid email or password" });
    expect(unknown.body).toEqual(wrong.body);
  });
});

describe("registration input and open registration", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ config: { registration: "open", default_plan: "team" } });
  });
  afterAll(() => server.stop());

  test.each([
    [{ email: "bad", password: "long-enough", organization_name: "X" }, "email"],
    [{ email: "a@b.io", password: "short", organization_name: "X" }, "password"],
    [{ email: "a@b.io", password: "long-enough", organization_name: " " }, "organization_name"],
    [{ email: "a@b.io", password: "long-enough" }, "organization_name"],
  ])("%p → 422 naming %s", async (body, field) => {
    const answer = await register(server, body);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    expect(Object.keys(answer.body.errors)).toContain(field);
  });

  test("malformed JSON is a 400", async () => {
    const response = await fetch(`${server.url}/api/v1/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{nope",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_json" });
  });

  test("open registration: later organizations get the default plan; emails are unique in any case", async () => {
    const first = await register(server, { ...owner, email: "one@example.com" });
    const second = await register(server, { ...owner, email: "two@example.com" });
    expect(first.body.organization.plan).toBe("enterprise");
    expect(second.body.organization.plan).toBe("team");
    // The same organization name makes a second organization, never a way into the first.
    expect(second.body.organization.id).not.toBe(first.body.organization.id);
    const again = await register(server, { ...owner, email: "TWO@example.com" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: "email_taken" });
  });
});

describe("login rate limit", () => {
  test("an address that keeps trying gets 429 with Retry-After, then may try again later", async () => {
    const clock = createFakeClock();
    const server = await startTestServer({ clock });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++)
        statuses.push((await login(server, "x@example.com", "password1")).status);
      expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
      const limited = await login(server, "x@example.com", "password1");
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      clock.advance(60_000);
      expect((await login(server, "x@example.com", "password1")).status).toBe(401);
    } finally {
      await server.stop();
    }
  }, 60_000); // twelve password checks (argon2id): slow on a busy machine
});

describe("registration rate limit", () => {
  test("a client that keeps registering gets 429 with Retry-After, then may again later", async () => {
    const clock = createFakeClock();
    const server = await startTestServer({ clock, config: { registration: "open" } });
    try {
      const attempt = (i: number, password = "password1") =>
        register(server, {
          email: `user${i}@example.com`,
          password,
          organization_name: `Org ${i}`,
        });
      // Refused attempts count too (and skip the password hashing that makes this test slow).
      expect((await attempt(0)).status).toBe(201);
      for (let i = 1; i < 10; i++) expect((await attempt(i, "short")).status).toBe(422);
      const limited = await attempt(10);
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBe(60);
      expect(await apiCall(server, "GET", "/api/v1/auth/setup")).toMatchObject({ status: 200 });
      clock.advance(60_000);
      expect((await attempt(11)).status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});

describe("first-run setup from another machine", () => {
  const warnings = (server: TestServer) =>
    server.logs
      .map((line) => JSON.parse(line) as { level: string; msg: string; address?: string })
      .filter((entry) => entry.level === "warn" && /first-run setup/i.test(entry.msg));
  const registerFrom = (server: TestServer, forwardedFor: string, email: string) =>
    apiCall(server, "POST", "/api/v1/auth/register", {
      headers: { "x-forwarded-for": forwardedFor },
      body: { email, password: "password1", organization_name: "First" },
    });

  test("is logged prominently with the client's address; later registrations are not", async () => {
    const server = await startTestServer({
      config: { trusted_proxies: ["127.0.0.1"], registration: "open" },
    });
    try {
      expect((await registerFrom(server, "203.0.113.7", "first@example.com")).status).toBe(201);
      const logged = warnings(server);
      expect(logged.map((entry) => entry.address)).toEqual(["203.0.113.7", "203.0.113.7"]);
      expect(logged[1]?.msg).toContain("FIRST-RUN SETUP COMPLETED FROM 203.0.113.7");
      // A user exists now: a later registration is no first-run setup.
      expect((await registerFrom(server, "203.0.113.8", "second@example.com")).status).toBe(201);
      expect(warnings(server)).toHaveLength(2);
    } finally {
      await server.stop();
    }
  });

  test("from this machine it is not", async () => {
    const server = await startTestServer();
    try {
      expect((await register(server, owner)).status).toBe(201);
      expect(warnings(server)).toEqual([]);
    } finally {
      await server.stop();
    }
  });
});

describe("login rate limit behind a proxy", () => {
  const attempts = async (server: TestServer, forwardedFor: string, count: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const answer = await apiCall(server, "POST", "/api/v1/auth/login", {
        headers: { "x-forwarded-for": forwardedFor },
        body: { email: "x@example.com", password: "password1" },
      });
      statuses.push(answer.status);
    }
    return statuses;
  };

  test("a trusted proxy's clients each get their own bucket", async () => {
    // A fake clock: on a busy machine eleven real logins take long enough to refill a token.
    const server = await startTestServer({
      clock: createFakeClock(),
      config: { trusted_proxies: ["127.0.0.1"] },
    });
    try {
      expect((await attempts(server, "203.0.113.1", 11)).at(-1)).toBe(429);
      expect(await attempts(server, "203.0.113.2", 1)).toEqual([401]);
    } finally {
      await server.stop();
    }
  }, 60_000); // a dozen password checks (argon2id): slow on a busy machine

  test("without a trusted proxy, a forged X-Forwarded-For does not buy more attempts", async () => {
    const server = await startTestServer({ clock: createFakeClock() });
    try {
      await attempts(server, "203.0.113.1", 10);
      expect(await attempts(server, "203.0.113.99", 1)).toEqual([429]);
    } finally {
      await server.stop();
    }
  }, 60_000); // a dozen password checks (argon2id): slow on a busy machine
});

describe("tokens and organizations", () => {
  test("a token expires after WEIR_JWT_TTL (fake clock)", async () => {
    const clock = createFakeClock();
    const server = await startTestServer({ clock, config: { jwt_ttl: 3_600_000 } });
    try {
      const account = await signUp(server);
      const me = () => apiCall(server, "GET", "/api/v1/me", { headers: account.headers });
      clock.advance(3_599_000);
      expect((await me()).status).toBe(200);
      clock.advance(1_000);
      const expired = await me();
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual({ error: "Invalid or missing API key" });
    } finally {
      await server.stop();
    }
  });

  test("X-Organization-Id acts in another of the user's organizations; not a member → 404", async () => {
    const server = await startTestServer();
    try {
      const alice = await signUp(server, { plan: "free" });
      const bob = await signUp(server, { plan: "team" });
      const aliceInBob = await signUp(server, {
        email: "alice2@example.com",
        organizationId: bob.organizationId,
        role: "admin",
      });
      const me = (headers: Record<string, string>) =>
        apiCall(server, "GET", "/api/v1/me", { headers });
      const home = await me(aliceInBob.headers);
      expect(home.body.organization).toMatchObject({
        id: bob.organizationId,
        role: "admin",
        plan: "team",
      });
      const other = await me({ ...bob.headers, "x-organization-id": alice.organizationId });
      expect(other.status).toBe(404);
      const own = await me({ ...bob.headers, "x-organization-id": bob.organizationId });
      expect(own.body.organization.id).toBe(bob.organizationId);
    } finally {
      await server.stop();
    }
  });

  test("organizations carry their plan's effective limits, overrides included", async () => {
    const plans = parsePlanTable({ team: { debug_endpoints: 25, realtime: false } });
    const server = await startTestServer({ config: { plans } });
    try {
      const account = await signUp(server, { plan: "team" });
      const key = await account.createApiKey();
      for (const headers of [account.headers, { "x-api-key": key }]) {
        const me = await apiCall(server, "GET", "/api/v1/me", { headers });
        expect(me.body.organization.limits).toEqual({
          ...DEFAULT_PLANS.team,
          debug_endpoints: 25,
          realtime: false,
        });
      }
    } finally {
      await server.stop();
    }
  });

  test("resetting a password ends earlier sessions: REST and the realtime socket", async () => {
    const scheduler = createManualScheduler();
    const server = await startTestServer({ scheduler });
    let live: ReturnType<typeof connectSocket> | undefined;
    try {
      const account = await signUp(server);
      const { resetPassword } = await import("./accounts.service.ts");
      const { createAuthSqliteStore } = await import("./auth.sqlite.ts");
      const { createAuthPostgresStore } = await import("./auth.postgres.ts");
      const before = await apiCall(server, "GET", "/api/v1/me", { headers: account.headers });
      expect(before.status).toBe(200);
      const endpoint = await apiCall(server, "POST", "/api/v1/endpoints", {
        headers: account.headers,
        body: { debug_endpoint: { name: "watched" } },
      });
      live = connectSocket(server.url, { token: account.token });
      const watcher = await subscribe(live, endpoint.body.data.id);
      expect(watcher.reply.status).toBe("ok");

      await resetPassword(
        { email: account.email, password: "a-brand-new-one" },
        {
          store: server.postgres
            ? createAuthPostgresStore(server.postgres)
            : createAuthSqliteStore(server.deps.db),
          clock: server.deps.clock,
        },
      );
      const after = await apiCall(server, "GET", "/api/v1/me", { headers: account.headers });
      expect(after.status).toBe(401);
      // The socket opened before the reset ends at the next re-check of live sockets.
      await scheduler.run(RIGHTS_RECHECK_JOB);
      const closes = live.closes;
      await pollUntil(() => closes.length > 0, { what: "the socket to close" });
      expect(closes[0]).toEqual({ code: 4401, reason: "password_changed" });
      expect(watcher.closes).toEqual([{ reason: "unauthorized" }]);
    } finally {
      live?.disconnect();
      await server.stop();
    }
  });
});
