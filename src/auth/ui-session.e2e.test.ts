/**
 * The web UI's session cookie (docs/security.md, "Web UI session"): set at login and
 * registration only for the UI, httpOnly and SameSite=Strict, accepted only on same-origin UI
 * calls and socket upgrades, cleared at logout; API clients never see it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { handshakeStatus } from "../test-utils/realtime-client.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const UI = { "x-weir-ui": "1" };

let server: TestServer;
let account: TestAccount;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer();
  account = await signUp(server);
});
afterAll(() => server.stop());

const me = (headers: Record<string, string>) =>
  apiCall(server, "GET", "/api/v1/me", { headers }).then((answer) => answer.status);

describe("web UI session cookie", () => {
  test("a login from the UI sets an httpOnly, SameSite=Strict cookie for the token's lifetime", async () => {
    const answer = await apiCall(server, "POST", "/api/v1/auth/login", {
      headers: UI,
      body: { email: account.email, password: account.password },
    });
    expect(answer.status).toBe(200);
    const setCookie = answer.headers.get("set-cookie") ?? "";
    expect(setCookie).toStartWith(`weir_session=${answer.body.token}; `);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).toContain(`Max-Age=${server.deps.config.jwt_ttl / 1000}`);
    expect(setCookie).not.toContain("Secure");
    cookie = `weir_session=${answer.body.token}`;
  });

  test("an API client's login gets no cookie", async () => {
    const answer = await apiCall(server, "POST", "/api/v1/auth/login", {
      body: { email: account.email, password: account.password },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("set-cookie")).toBeNull();
  });

  test("behind a TLS proxy the cookie is Secure", async () => {
    const answer = await apiCall(server, "POST", "/api/v1/auth/login", {
      headers: { ...UI, "x-forwarded-proto": "https" },
      body: { email: account.email, password: account.password },
    });
    expect(answer.headers.get("set-cookie")).toContain("; Secure");
  });

  test.each([
    ["a same-origin UI call", { ...UI, "sec-fetch-site": "same-origin" }, 200],
    ["a UI call from an older browser with a matching Origin", { ...UI, origin: "ORIGIN" }, 200],
    ["a call without the UI header (a cross-site form)", {}, 401],
    ["a cross-site call", { ...UI, "sec-fetch-site": "cross-site" }, 401],
    ["a same-site call from another origin", { ...UI, "sec-fetch-site": "same-site" }, 401],
    ["an Origin of another site", { ...UI, origin: "http://evil.example" }, 401],
  ])("the cookie on %s", async (_, headers, status) => {
    const resolved = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k, v === "ORIGIN" ? server.url : v]),
    );
    expect(await me({ ...resolved, cookie })).toBe(status);
  });

  test("the cookie cannot carry an API key, and a forged token is refused", async () => {
    const key = await account.createApiKey();
    expect(await me({ ...UI, cookie: `weir_session=${key}` })).toBe(401);
    expect(await me({ ...UI, cookie: `weir_session=${account.token}x` })).toBe(401);
  });

  test("the socket upgrade takes the cookie from the same origin only", async () => {
    expect(await handshakeStatus(server.url, "vsn=2.0.0", { cookie, origin: server.url })).toBe(
      101,
    );
    expect(
      await handshakeStatus(server.url, "vsn=2.0.0", { cookie, origin: "http://evil.example" }),
    ).toBe(403);
    expect(
      await handshakeStatus(server.url, "vsn=2.0.0", { cookie, "sec-fetch-site": "cross-site" }),
    ).toBe(403);
    expect(await handshakeStatus(server.url, "vsn=2.0.0", { origin: server.url })).toBe(403);
  });

  test("logout clears the cookie", async () => {
    const answer = await apiCall(server, "POST", "/api/v1/auth/logout", { headers: UI });
    expect(answer.status).toBe(204);
    const setCookie = answer.headers.get("set-cookie") ?? "";
    expect(setCookie).toStartWith("weir_session=; ");
    expect(setCookie).toContain("Max-Age=0");
  });
});
