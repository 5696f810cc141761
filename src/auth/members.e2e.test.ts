import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
const membersPath = (account: TestAccount, userId = "") =>
  `/api/v1/organizations/${account.organizationId}/members${userId ? `/${userId}` : ""}`;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

describe("members (owner only)", () => {
  test("the owner lists, adds, changes and removes members", async () => {
    const added = await apiCall(server, "POST", membersPath(owner), {
      headers: owner.headers,
      body: { email: "New.Person@example.com", role: "member", password: "first-password" },
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toEqual({
      user_id: expect.any(String),
      email: "New.Person@example.com",
      role: "member",
      created_at: expect.any(String),
    });
    const id = added.body.data.user_id;
    const changed = await apiCall(server, "PATCH", membersPath(owner, id), {
      headers: owner.headers,
      body: { role: "admin" },
    });
    expect(changed.body.data.role).toBe("admin");
    const login = await apiCall(server, "POST", "/api/v1/auth/login", {
      body: { email: "new.person@example.com", password: "first-password" },
    });
    expect(login.body.organizations).toEqual([
      expect.objectContaining({ id: owner.organizationId, role: "admin" }),
    ]);
    const listed = await apiCall(server, "GET", membersPath(owner), { headers: owner.headers });
    expect(listed.body.data.map((m: { user_id: string }) => m.user_id)).toEqual([owner.userId, id]);
    expect(JSON.stringify(listed.body)).not.toContain("password");
    const removed = await apiCall(server, "DELETE", membersPath(owner, id), {
      headers: owner.headers,
    });
    expect(removed.status).toBe(204);
    const after = await apiCall(server, "GET", membersPath(owner), { headers: owner.headers });
    expect(after.body.data).toHaveLength(1);
  });

  test("an existing user is added without a password; a new one needs it; twice is a 409", async () => {
    const elsewhere = await signUp(server);
    const added = await apiCall(server, "POST", membersPath(owner), {
      headers: owner.headers,
      body: { email: elsewhere.email.toUpperCase(), role: "member" },
    });
    expect(added.status).toBe(201);
    const again = await apiCall(server, "POST", membersPath(owner), {
      headers: owner.headers,
      body: { email: elsewhere.email, role: "admin" },
    });
    expect(again.status).toBe(409);
    const stranger = await apiCall(server, "POST", membersPath(owner), {
      headers: owner.headers,
      body: { email: "stranger@example.com", role: "member" },
    });
    expect(stranger.status).toBe(422);
    expect(stranger.body.errors.password).toBeDefined();
  });

  test.each([
    [{ email: "x@example.com", role: "king", password: "long-enough" }, "role"],
    [{ email: "nope", role: "member", password: "long-enough" }, "email"],
    [{ email: "y@example.com", role: "member", password: "short" }, "password"],
  ])("%p → 422 naming %s", async (body, field) => {
    const answer = await apiCall(server, "POST", membersPath(owner), {
      headers: owner.headers,
      body,
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors[field]).toBeDefined();
  });

  test("the last owner can be neither demoted nor removed (422); with two owners one may go", async () => {
    const demote = await apiCall(server, "PATCH", membersPath(owner, owner.userId), {
      headers: owner.headers,
      body: { role: "admin" },
    });
    expect(demote.status).toBe(422);
    expect(demote.body.errors.role).toBeDefined();
    const remove = await apiCall(server, "DELETE", membersPath(owner, owner.userId), {
      headers: owner.headers,
    });
    expect(remove.status).toBe(422);
    const second = await owner.addMember("owner");
    const demoteSecond = await apiCall(server, "PATCH", membersPath(owner, second.userId), {
      headers: owner.headers,
      body: { role: "member" },
    });
    expect(demoteSecond.status).toBe(200);
  });

  test.each(["admin", "member"] as const)(
    "an %s cannot touch members (403 forbidden)",
    async (role) => {
      const person = await owner.addMember(role);
      const calls = [
        apiCall(server, "GET", membersPath(owner), { headers: person.headers }),
        apiCall(server, "POST", membersPath(owner), {
          headers: person.headers,
          body: { email: "z@example.com", role: "owner", password: "long-enough" },
        }),
        apiCall(server, "PATCH", membersPath(owner, person.userId), {
          headers: person.headers,
          body: { role: "owner" },
        }),
        apiCall(server, "DELETE", membersPath(owner, owner.userId), { headers: person.headers }),
      ];
      for (const answer of await Promise.all(calls)) {
        expect(answer.status).toBe(403);
        expect(answer.body).toEqual({ error: "forbidden" });
      }
    },
  );

  test("an API key acts as owner here", async () => {
    const key = await owner.createApiKey();
    const answer = await apiCall(server, "GET", membersPath(owner), {
      headers: { "x-api-key": key },
    });
    expect(answer.status).toBe(200);
  });

  test("another organization's members are a 404; so is an unknown member; no credentials a 401", async () => {
    const other = await signUp(server);
    const answers = await Promise.all([
      apiCall(server, "GET", membersPath(other), { headers: owner.headers }),
      apiCall(server, "DELETE", membersPath(other, other.userId), { headers: owner.headers }),
      apiCall(server, "PATCH", membersPath(owner, other.userId), {
        headers: owner.headers,
        body: { role: "member" },
      }),
      apiCall(server, "GET", membersPath(other), {
        headers: { "x-api-key": await owner.createApiKey() },
      }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404]);
    expect((await apiCall(server, "GET", membersPath(owner))).status).toBe(401);
  });
});
