import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import {
  type CreatedEndpoint,
  callAs,
  captureAt,
  createDebugEndpoint,
} from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { insertCapturedRequest } from "../test-utils/requests-fixtures.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { onPostgres } from "../test-utils/test-store.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
let endpoint: CreatedEndpoint;
let requestId: string;
const sink = startHttpSink();

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "enterprise" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "enterprise" });
  endpoint = await createDebugEndpoint(server, owner, { name: "Family" });
  requestId = await captureAt(server, `/w/${endpoint.slug}/sub?q=1`);
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const EVERY_ROUTE = [
  { method: "GET", path: "/api/v1/endpoints", write: false, ok: 200 },
  { method: "POST", path: "/api/v1/endpoints", write: true, ok: 201 },
  { method: "GET", path: "/api/v1/endpoints/{e}", write: false, ok: 200 },
  { method: "PUT", path: "/api/v1/endpoints/{e}", write: true, ok: 200 },
  { method: "GET", path: "/api/v1/endpoints/{e}/requests", write: false, ok: 200 },
  { method: "GET", path: "/api/v1/endpoints/{e}/requests/{r}", write: false, ok: 200 },
  {
    method: "GET",
    path: "/api/v1/endpoints/{e}/requests/{r}/forwards",
    write: false,
    ok: 200,
  },
  {
    method: "POST",
    path: "/api/v1/endpoints/{e}/requests/{r}/replay",
    write: true,
    ok: 201,
  },
  { method: "DELETE", path: "/api/v1/endpoints/{e}/requests", write: true, ok: 204 },
  { method: "DELETE", path: "/api/v1/endpoints/{e}", write: true, ok: 204 },
] as const;
const ROUTES = EVERY_ROUTE;
const BODY = { debug_endpoint: { name: "Family" }, url: sink.url };
const fill = (path: string, e = endpoint.id, r = requestId) =>
  path.replace("{e}", e).replace("{r}", r);

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
    expect((await callAs(server, member, route.method, fill(route.path), BODY)).status).toBe(
      route.ok,
    );
  });

  test.each(ROUTES.filter((r) => r.path.includes("{e}")))(
    "$method $path of another organization → 404",
    async (route) => {
      const answer = await callAs(server, stranger, route.method, fill(route.path), BODY);
      expect([answer.status, answer.body]).toEqual([404, { error: "not_found" }]);
    },
  );

  test("the plan limit → 403 endpoint_limit_reached here too", async () => {
    const free = await signUp(server, { plan: "free" });
    for (let i = 0; i < 3; i++) await createDebugEndpoint(server, free);
    const answer = await callAs(server, free, "POST", "/api/v1/endpoints", BODY);
    expect([answer.status, answer.body]).toEqual([403, { error: "endpoint_limit_reached" }]);
  });
});

describe("envelopes", () => {
  test("create → 201 {data} with inserted_at and a /w/ capture URL", async () => {
    const answer = await callAs(server, owner, "POST", "/api/v1/endpoints", {
      debug_endpoint: { name: "Via family", slug: "via-family" },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({
      name: "Via family",
      slug: "via-family",
      status: "active",
      webhook_url: `${server.url}/w/via-family`,
      organization_id: owner.organizationId,
      request_count: 0,
    });
    expect(answer.body.data.inserted_at).toEqual(expect.any(String));
    expect(answer.body.data.created_at).toBeUndefined();
  });

  test("one resource: both lists show it, each with its own capture URL", async () => {
    const family = await callAs(server, owner, "GET", "/api/v1/endpoints");
    const debug = await callAs(server, owner, "GET", "/api/v1/debug-endpoints");
    const inFamily = family.body.data.find((e: CreatedEndpoint) => e.id === endpoint.id);
    const inDebug = debug.body.debug_endpoints.find((e: CreatedEndpoint) => e.id === endpoint.id);
    expect(inFamily.webhook_url).toBe(`${server.url}/w/${endpoint.slug}`);
    expect(inDebug.webhook_url).toBe(`${server.url}/debug/${endpoint.slug}`);
    expect(inFamily.inserted_at).toBe(inDebug.created_at);
  });

  test("get one → {data}; one request → {data}", async () => {
    const one = await callAs(server, member, "GET", `/api/v1/endpoints/${endpoint.id}`);
    expect(one.body.data.id).toBe(endpoint.id);
    const request = await callAs(server, member, "GET", fill(EVERY_ROUTE[5].path));
    expect(request.body.data).toMatchObject({
      id: requestId,
      debug_endpoint_id: endpoint.id,
      method: "POST",
      path: "/sub",
      query_string: "q=1",
      body: '{"hello":"world"}',
      body_encoding: "utf8",
      status: "200",
    });
  });

  test("PUT renames → {data}; a changed slug → 422; a bad name → 422", async () => {
    const target = await createDebugEndpoint(server, owner, { name: "Old" });
    const url = `/api/v1/endpoints/${target.id}`;
    const renamed = await callAs(server, owner, "PUT", url, { debug_endpoint: { name: "New" } });
    expect([renamed.status, renamed.body.data.name, renamed.body.data.slug]).toEqual([
      200,
      "New",
      target.slug,
    ]);
    const slug = await callAs(server, owner, "PUT", url, { debug_endpoint: { slug: "other-one" } });
    expect([slug.status, slug.body.errors]).toEqual([422, { slug: ["cannot be changed"] }]);
    const blank = await callAs(server, owner, "PUT", url, { debug_endpoint: { name: " " } });
    expect([blank.status, Object.keys(blank.body.errors)]).toEqual([422, ["name"]]);
  });

  test("DELETE /requests empties the endpoint and keeps it", async () => {
    const target = await createDebugEndpoint(server, owner, { name: "To empty" });
    await captureAt(server, `/w/${target.slug}`);
    await captureAt(server, `/w/${target.slug}`);
    const url = `/api/v1/endpoints/${target.id}`;
    const emptied = await callAs(server, owner, "DELETE", `${url}/requests`);
    expect([emptied.status, emptied.body]).toEqual([204, null]);
    const list = await callAs(server, owner, "GET", `${url}/requests`);
    expect([list.body.total, list.body.data]).toEqual([0, []]);
    expect((await callAs(server, owner, "GET", url)).body.data.request_count).toBe(0);
    await captureAt(server, `/w/${target.slug}`);
  });

  test("DELETE → 204, then 404", async () => {
    const target = await createDebugEndpoint(server, owner, { name: "Gone" });
    const url = `/api/v1/endpoints/${target.id}`;
    expect((await callAs(server, owner, "DELETE", url)).status).toBe(204);
    expect((await callAs(server, owner, "GET", url)).status).toBe(404);
  });
});

// Seeds 45 requests straight into SQLite.
describe.skipIf(onPostgres)("pagination (interface.md Pagination, decisions.md §5)", () => {
  let paged: CreatedEndpoint;
  const ids = Array.from({ length: 45 }, (_, i) => `0190-page-${String(i).padStart(3, "0")}`);

  beforeAll(async () => {
    paged = await createDebugEndpoint(server, owner, { name: "Paged" });
    for (const id of ids) {
      insertCapturedRequest(server.deps.db, { id, endpointId: paged.id, body: id });
    }
  });

  const newestFirst = [...ids].reverse();
  test.each([
    ["", 1, 20, newestFirst.slice(0, 20)],
    ["?page=2", 2, 20, newestFirst.slice(20, 40)],
    ["?page=3", 3, 20, newestFirst.slice(40)],
    ["?page=4", 4, 20, []],
    ["?page=2&page_size=7", 2, 7, newestFirst.slice(7, 14)],
    ["?page_size=500", 1, 100, newestFirst],
    ["?page_size=100", 1, 100, newestFirst],
    ["?page_size=1&page=45", 45, 1, [ids[0]]],
  ])("generic: %s → page %p of %p", async (query, page, pageSize, expected) => {
    const answer = await callAs(
      server,
      member,
      "GET",
      `/api/v1/endpoints/${paged.id}/requests${query}`,
    );
    expect(answer.status).toBe(200);
    expect({ ...answer.body, data: answer.body.data.map((r: { id: string }) => r.id) }).toEqual({
      data: expected,
      page,
      page_size: pageSize,
      total: 45,
    });
  });

  test.each([
    ["", 1, 20, 3],
    ["?page_size=7", 1, 7, 7],
    ["?page_size=45", 1, 45, 1],
    ["?page_size=44", 1, 44, 2],
    ["?page_size=1000&page=2", 2, 100, 1],
  ])(
    "debug-endpoints: %s → total_pages = ceil(45 / page_size)",
    async (query, page, size, pages) => {
      const url = `/api/v1/debug-endpoints/${paged.id}/requests${query}`;
      const answer = await callAs(server, member, "GET", url);
      expect(answer.body.pagination).toEqual({
        page,
        page_size: size,
        total_count: 45,
        total_pages: pages,
      });
      expect(answer.body.debug_requests[0]?.id).toBe(page === 1 ? ids[44] : undefined);
    },
  );

  test("an empty endpoint has 0 pages", async () => {
    const empty = await createDebugEndpoint(server, owner, { name: "Empty" });
    const answer = await callAs(
      server,
      member,
      "GET",
      `/api/v1/debug-endpoints/${empty.id}/requests`,
    );
    expect(answer.body).toEqual({
      debug_requests: [],
      pagination: { page: 1, page_size: 20, total_count: 0, total_pages: 0 },
    });
  });

  test.each(["page=0", "page=-1", "page=1.5", "page=abc", "page_size=0", "page_size=2e1"])(
    "?%s → 422 in both families",
    async (query) => {
      for (const family of ["endpoints", "debug-endpoints"]) {
        const url = `/api/v1/${family}/${paged.id}/requests?${query}`;
        const answer = await callAs(server, member, "GET", url);
        expect([answer.status, answer.body.error]).toEqual([422, "validation_failed"]);
      }
    },
  );
});
