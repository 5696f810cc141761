import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import {
  type CreatedEndpoint,
  callAs,
  captureAt,
  createDebugEndpoint,
} from "../test-utils/endpoints.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { storedRows } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let admin: TestAccount;
let stranger: TestAccount;
let endpoint: CreatedEndpoint;
let requestId: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "enterprise" });
  member = await owner.addMember("member");
  admin = await owner.addMember("admin");
  stranger = await signUp(server, { plan: "enterprise" });
  endpoint = await createDebugEndpoint(server, owner, { name: "Shared" });
  requestId = await captureAt(server, `/debug/${endpoint.slug}`);
});
afterAll(() => server.stop());

/** Every route of the family; `{e}`/`{r}` stand for the endpoint and request ids. */
const ROUTES = [
  { method: "POST", path: "/api/v1/debug-endpoints", write: true, ok: 201 },
  { method: "GET", path: "/api/v1/debug-endpoints", write: false, ok: 200 },
  { method: "GET", path: "/api/v1/debug-endpoints/{e}", write: false, ok: 200 },
  { method: "PATCH", path: "/api/v1/debug-endpoints/{e}", write: true, ok: 200 },
  { method: "GET", path: "/api/v1/debug-endpoints/{e}/requests", write: false, ok: 200 },
  { method: "GET", path: "/api/v1/debug-endpoints/{e}/requests/{r}", write: false, ok: 200 },
  { method: "DELETE", path: "/api/v1/debug-endpoints/{e}", write: true, ok: 204 },
] as const;
const BODY = { debug_endpoint: { name: "Renamed or new" } };
const fill = (path: string, e = endpoint.id, r = requestId) =>
  path.replace("{e}", e).replace("{r}", r);
const bySomeoneElse = ROUTES.filter((route) => route.path.includes("{e}"));

describe("access", () => {
  test.each(ROUTES)("$method $path without credentials → 401", async (route) => {
    const answer = await callAs(server, null, route.method, fill(route.path), BODY);
    expect([answer.status, answer.body]).toEqual([401, { error: "Invalid or missing API key" }]);
  });

  test.each(ROUTES)("$method $path with a bad key → 401", async (route) => {
    const headers = { "x-api-key": "svc_00000000000000000000000000000000" };
    const answer = await callAs(server, { headers }, route.method, fill(route.path), BODY);
    expect(answer.status).toBe(401);
  });

  test.each(ROUTES.filter((route) => route.write))(
    "$method $path as a member → 403 forbidden",
    async (route) => {
      const answer = await callAs(server, member, route.method, fill(route.path), BODY);
      expect([answer.status, answer.body]).toEqual([403, { error: "forbidden" }]);
    },
  );

  test.each(ROUTES.filter((route) => !route.write))(
    "$method $path as a member → $ok",
    async (route) => {
      const answer = await callAs(server, member, route.method, fill(route.path), BODY);
      expect(answer.status).toBe(route.ok);
    },
  );

  test.each(bySomeoneElse)("$method $path of another organization → 404", async (route) => {
    const answer = await callAs(server, stranger, route.method, fill(route.path), BODY);
    expect([answer.status, answer.body]).toEqual([404, { error: "not_found" }]);
  });

  test("a request id of another endpoint → 404, even one of the caller's organization", async () => {
    const other = await createDebugEndpoint(server, owner, { name: "Other" });
    const answer = await callAs(server, owner, "GET", fill(ROUTES[5].path, other.id));
    expect(answer.status).toBe(404);
  });

  test("an admin and an owner's API key may write", async () => {
    const byAdmin = await createDebugEndpoint(server, admin, { name: "By admin" });
    const key = await owner.createApiKey();
    const patched = await callAs(
      server,
      { headers: { "x-api-key": key } },
      "PATCH",
      `/api/v1/debug-endpoints/${byAdmin.id}`,
      { debug_endpoint: { name: "By key" } },
    );
    expect([patched.status, patched.body.name]).toEqual([200, "By key"]);
  });
});

describe("create", () => {
  test("201 with the bare endpoint: every field, capture URL under /debug/", async () => {
    const answer = await callAs(server, owner, "POST", "/api/v1/debug-endpoints", {
      debug_endpoint: {
        name: "Payments",
        slug: "payments-prod",
        response: { status: 202, headers: { "x-answer": "yes" }, body: "queued", delay_ms: 5 },
        forward_url: "http://127.0.0.1:9/in",
      },
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({
      id: expect.any(String),
      name: "Payments",
      slug: "payments-prod",
      status: "active",
      webhook_url: `${server.url}/debug/payments-prod`,
      organization_id: owner.organizationId,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: answer.body.created_at,
      refused: { rate_limited: 0, payload_too_large: 0, last_refused_at: null },
      request_count: 0,
      last_request_at: null,
      forward_url: "http://127.0.0.1:9/in",
      response: { status: 202, headers: { "x-answer": "yes" }, body: "queued", delay_ms: 5 },
      verification: null,
    });
  });

  test("a generated slug is the name plus a random-looking suffix", async () => {
    const first = await createDebugEndpoint(server, owner, { name: "Stripe Events!" });
    const second = await createDebugEndpoint(server, owner, { name: "Stripe Events!" });
    expect(first.slug).toMatch(/^stripe-events-[a-z0-9]{8}$/);
    expect(second.slug).not.toBe(first.slug);
  });

  test.each([
    [{ debug_endpoint: {} }, "name"],
    [{ debug_endpoint: { name: "" } }, "name"],
    [{ debug_endpoint: { name: "x".repeat(256) } }, "name"],
    [{ debug_endpoint: { name: "n", slug: "ab" } }, "slug"],
    [{ debug_endpoint: { name: "n", slug: "x".repeat(64) } }, "slug"],
    [{ debug_endpoint: { name: "n", slug: "Not_OK" } }, "slug"],
    [{ debug_endpoint: { name: "n", slug: "double--hyphen" } }, "slug"],
    [{ debug_endpoint: { name: "n", response: { status: 700 } } }, "response.status"],
    [{ debug_endpoint: { name: "n", response: { delay_ms: 30_001 } } }, "response.delay_ms"],
    [{ debug_endpoint: { name: "n", response: { headers: { a: 1 } } } }, "response.headers"],
    [{ debug_endpoint: { name: "n", response: { body: {} } } }, "response.body"],
    [{ debug_endpoint: { name: "n", forward_url: "mailto:a@b.example" } }, "forward_url"],
  ])("%j → 422 errors.%s", async (body, field) => {
    const answer = await callAs(server, owner, "POST", "/api/v1/debug-endpoints", body);
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    expect(Object.keys(answer.body.errors)).toEqual([field]);
  });

  test("no body → 422 errors.name; malformed JSON → 400 invalid_json", async () => {
    const answer = await apiCall(server, "POST", "/api/v1/debug-endpoints", {
      headers: owner.headers,
    });
    const raw = await fetch(`${server.url}/api/v1/debug-endpoints`, {
      method: "POST",
      headers: { ...owner.headers, "content-type": "application/json" },
      body: "{nope",
    });
    expect([answer.status, Object.keys(answer.body.errors)]).toEqual([422, ["name"]]);
    expect([raw.status, await raw.json()]).toEqual([400, { error: "invalid_json" }]);
  });

  test("a taken slug → 409 slug_taken, whichever organization holds it", async () => {
    await createDebugEndpoint(server, owner, { slug: "taken-slug" });
    const answer = await callAs(server, stranger, "POST", "/api/v1/debug-endpoints", {
      debug_endpoint: { name: "n", slug: "taken-slug" },
    });
    expect([answer.status, answer.body]).toEqual([409, { error: "slug_taken" }]);
  });

  test("the plan limit → 403 endpoint_limit_reached (free: 3)", async () => {
    const free = await signUp(server, { plan: "free" });
    for (let i = 0; i < 3; i++) await createDebugEndpoint(server, free);
    const answer = await callAs(server, free, "POST", "/api/v1/debug-endpoints", BODY);
    expect([answer.status, answer.body]).toEqual([403, { error: "endpoint_limit_reached" }]);
    const team = await signUp(server, { plan: "team" });
    for (let i = 0; i < 10; i++) await createDebugEndpoint(server, team);
    const eleventh = await callAs(server, team, "POST", "/api/v1/debug-endpoints", BODY);
    expect(eleventh.status).toBe(403);
  });
});

describe("list, get, update, delete", () => {
  test("the list holds the organization's endpoints only, newest first, with counts", async () => {
    const mine = await createDebugEndpoint(server, stranger, { name: "Stranger's" });
    const answer = await callAs(server, stranger, "GET", "/api/v1/debug-endpoints");
    expect(answer.status).toBe(200);
    const ids = answer.body.debug_endpoints.map((e: CreatedEndpoint) => e.id);
    expect(ids[0]).toBe(mine.id);
    expect(ids).not.toContain(endpoint.id);
    const ownList = await callAs(server, owner, "GET", "/api/v1/debug-endpoints");
    const shared = ownList.body.debug_endpoints.find((e: CreatedEndpoint) => e.id === endpoint.id);
    expect(shared.request_count).toBeGreaterThanOrEqual(1);
    expect(shared.last_request_at).toEqual(expect.any(String));
  });

  test("get one is the bare endpoint", async () => {
    const answer = await callAs(server, member, "GET", `/api/v1/debug-endpoints/${endpoint.id}`);
    expect(answer.body).toMatchObject({ id: endpoint.id, slug: endpoint.slug, name: "Shared" });
    expect(answer.body.webhook_url).toBe(`${server.url}/debug/${endpoint.slug}`);
  });

  test("pause → capture 404 and requests kept; resume → capture again", async () => {
    const paused = await createDebugEndpoint(server, owner, { name: "Pausable" });
    await captureAt(server, `/debug/${paused.slug}`);
    const url = `/api/v1/debug-endpoints/${paused.id}`;
    const patch = await callAs(server, owner, "PATCH", url, {
      debug_endpoint: { status: "paused" },
    });
    expect([patch.status, patch.body.status]).toEqual([200, "paused"]);
    expect((await fetch(`${server.url}/debug/${paused.slug}`, { method: "POST" })).status).toBe(
      404,
    );
    expect(
      (await callAs(server, owner, "GET", `${url}/requests`)).body.pagination.total_count,
    ).toBe(1);
    await callAs(server, owner, "PATCH", url, { debug_endpoint: { status: "active" } });
    await captureAt(server, `/w/${paused.slug}`);
  });

  test("PATCH renames, sets and clears response and forward_url; updated_at moves", async () => {
    const target = await createDebugEndpoint(server, owner, { name: "Before" });
    const url = `/api/v1/debug-endpoints/${target.id}`;
    const set = await callAs(server, owner, "PATCH", url, {
      debug_endpoint: {
        name: "After",
        response: { status: 418 },
        forward_url: "https://x.example/",
      },
    });
    expect(set.body).toMatchObject({
      name: "After",
      slug: target.slug,
      response: { status: 418, headers: {}, body: "", delay_ms: 0 },
      forward_url: "https://x.example/",
    });
    const cleared = await callAs(server, owner, "PATCH", url, {
      debug_endpoint: { response: null, forward_url: null },
    });
    expect([cleared.body.response, cleared.body.forward_url, cleared.body.name]).toEqual([
      null,
      null,
      "After",
    ]);
  });

  test.each([
    [{ debug_endpoint: { status: "archived" } }, "status"],
    [{ debug_endpoint: { name: "" } }, "name"],
    [{ debug_endpoint: { slug: "brand-new-slug" } }, "slug"],
    [{ debug_endpoint: { response: { delay_ms: 99_999 } } }, "response.delay_ms"],
  ])("PATCH %j → 422 errors.%s", async (body, field) => {
    const answer = await callAs(
      server,
      owner,
      "PATCH",
      `/api/v1/debug-endpoints/${endpoint.id}`,
      body,
    );
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([field]);
  });

  test("PATCH with the unchanged slug is accepted", async () => {
    const answer = await callAs(server, owner, "PATCH", `/api/v1/debug-endpoints/${endpoint.id}`, {
      debug_endpoint: { slug: endpoint.slug, name: "Shared" },
    });
    expect(answer.status).toBe(200);
  });

  test("DELETE → 204 with no body; capture 404; then 404; the requests are drained in the background", async () => {
    const doomed = await createDebugEndpoint(server, owner, { name: "Doomed" });
    const captured = await captureAt(server, `/debug/${doomed.slug}`);
    const url = `/api/v1/debug-endpoints/${doomed.id}`;
    const answer = await callAs(server, owner, "DELETE", url);
    expect([answer.status, answer.body]).toEqual([204, null]);
    expect((await fetch(`${server.url}/debug/${doomed.slug}`)).status).toBe(404);
    expect((await callAs(server, owner, "DELETE", url)).status).toBe(404);
    expect((await callAs(server, owner, "GET", url)).status).toBe(404);
    expect((await callAs(server, owner, "GET", `${url}/requests/${captured}`)).status).toBe(404);
    await pollUntil(
      async () => (await storedRows(server, "captured_requests", "id", captured)).length === 0,
      {
        what: "the drain",
      },
    );
  });
});
