/**
 * Changing one's password (ends the other sessions, as a reset does) and renaming an
 * organization (owner only, another organization's is a 404): roles and validation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const changePassword = (headers: Record<string, string>, body: unknown) =>
  apiCall(server, "POST", "/api/v1/me/password", { headers, body });
const me = (headers: Record<string, string>) =>
  apiCall(server, "GET", "/api/v1/me", { headers }).then((a) => a.status);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("POST /api/v1/me/password", () => {
  test("the new password works, the old does not; other sessions end; the answer's token goes on", async () => {
    const account = await signUp(server);
    const other = (
      await apiCall(server, "POST", "/api/v1/auth/login", {
        body: { email: account.email, password: account.password },
      })
    ).body.token as string;
    expect(await me(bearer(other))).toBe(200);
    const answer = await changePassword(account.headers, {
      current_password: account.password,
      new_password: "a brand new secret",
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ token: expect.any(String), expires_at: expect.any(String) });
    expect(answer.headers.get("set-cookie")).toBeNull();
    expect(await me(bearer(other))).toBe(401);
    expect(await me(account.headers)).toBe(401);
    expect(await me(bearer(answer.body.token))).toBe(200);
    const login = (password: string) =>
      apiCall(server, "POST", "/api/v1/auth/login", { body: { email: account.email, password } });
    expect((await login(account.password)).status).toBe(401);
    expect((await login("a brand new secret")).status).toBe(200);
  });

  test("from the web UI the session cookie is renewed", async () => {
    const account = await signUp(server);
    const answer = await changePassword(
      { ...account.headers, "x-weir-ui": "1" },
      { current_password: account.password, new_password: "another fine secret" },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("set-cookie")).toStartWith(`weir_session=${answer.body.token};`);
  });

  test.each([
    [
      "a wrong current password",
      { current_password: "nope-nope", new_password: "long enough" },
      ["current_password"],
    ],
    [
      "a short new password",
      { current_password: "CURRENT", new_password: "short" },
      ["new_password"],
    ],
  ])("%s is a 422 naming the field, and changes nothing", async (_, body, fields) => {
    const account = await signUp(server);
    const resolved = {
      ...body,
      current_password:
        body.current_password === "CURRENT" ? account.password : body.current_password,
    };
    const answer = await changePassword(account.headers, resolved);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    expect(Object.keys(answer.body.errors)).toEqual(fields);
    expect(await me(account.headers)).toBe(200);
  });

  test("an API key has no password: 403 jwt_required; no credentials: 401", async () => {
    const account = await signUp(server);
    const key = await account.createApiKey();
    const body = { current_password: account.password, new_password: "long enough" };
    const withKey = await changePassword({ "x-api-key": key }, body);
    expect([withKey.status, withKey.body.error]).toEqual([403, "jwt_required"]);
    expect((await changePassword({}, body)).status).toBe(401);
  });
});

describe("PATCH /api/v1/organizations/{org_id}", () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await signUp(server, { orgName: "Old name" });
  });
  const rename = (who: { headers: Record<string, string> }, orgId: string, body: unknown) =>
    apiCall(server, "PATCH", `/api/v1/organizations/${orgId}`, { headers: who.headers, body });

  test("the owner renames it; /me shows the new name", async () => {
    const answer = await rename(owner, owner.organizationId, { name: "  New name  " });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: owner.organizationId, name: "New name" });
    const mine = await apiCall(server, "GET", "/api/v1/me", { headers: owner.headers });
    expect(mine.body.organizations[0].name).toBe("New name");
  });

  test.each(["admin", "member"] as const)(
    "an %s gets 403 forbidden, before the body is read",
    async (role) => {
      const other = await owner.addMember(role);
      const answer = await rename(other, owner.organizationId, { name: "" });
      expect([answer.status, answer.body.error]).toEqual([403, "forbidden"]);
    },
  );

  test("another organization is a 404, whatever the role there", async () => {
    const stranger = await signUp(server);
    const answer = await rename(stranger, owner.organizationId, { name: "Mine now" });
    expect([answer.status, answer.body.error]).toEqual([404, "not_found"]);
  });

  test.each([[{ name: "" }], [{ name: "x".repeat(256) }], [{}]])(
    "%j is a 422 naming name",
    async (body) => {
      const answer = await rename(owner, owner.organizationId, body);
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toEqual(["name"]);
    },
  );
});
