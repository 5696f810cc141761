import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs, captureAt, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { storedRow } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const clock = createFakeClock(Date.UTC(2026, 2, 1));
let server: TestServer;
let owner: TestAccount;
let created: { id: string; slug: string; webhook_url: string; token: string; expires_at: string };
let requestId: string;

const read = (path: string, token?: string) =>
  apiCall(server, "GET", `/api/v1/anonymous-endpoints${path}`, {
    headers: token === undefined ? {} : { "x-anonymous-token": token },
  });

beforeAll(async () => {
  server = await startTestServer({ clock });
  owner = await signUp(server);
  const answer = await apiCall(server, "POST", "/api/v1/anonymous-endpoints");
  expect(answer.status).toBe(201);
  created = answer.body.data;
  requestId = await captureAt(server, `/w/${created.slug}/hook?x=1`, {
    method: "POST",
    body: "anonymous body",
  });
});
afterAll(() => server.stop());

describe("create (no credentials)", () => {
  test("201 {data: {id, slug, webhook_url, token, expires_at}}, 7 days from now", () => {
    expect(created).toEqual({
      id: expect.any(String),
      slug: expect.stringMatching(/^anon-[a-z0-9]{8}$/),
      webhook_url: `${server.url}/w/${created.slug}`,
      token: expect.stringMatching(/^[0-9A-Za-z]{43}$/),
      expires_at: "2026-03-08T00:00:00.000Z",
    });
  });

  test("only the token's SHA-256 is stored", async () => {
    const row = await storedRow(server, "debug_endpoints", created.id);
    expect(row?.anonymous_token_hash).toBe(
      createHash("sha256").update(created.token).digest("hex"),
    );
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(row?.organization_id).toBeNull();
  });

  test("it belongs to no organization's lists", async () => {
    const list = await callAs(server, owner, "GET", "/api/v1/endpoints");
    expect(list.body.data.map((e: { id: string }) => e.id)).not.toContain(created.id);
    const byId = await callAs(server, owner, "GET", `/api/v1/endpoints/${created.id}`);
    expect(byId.status).toBe(404);
  });

  test("creation is rate limited per client address: 10 at once, then one a minute", async () => {
    const local = await startTestServer({ clock: createFakeClock() });
    try {
      const create = () => apiCall(local, "POST", "/api/v1/anonymous-endpoints");
      for (let i = 0; i < 10; i++) expect((await create()).status).toBe(201);
      const refused = await create();
      expect([refused.status, refused.body.error]).toEqual([429, "rate_limited"]);
      expect(refused.headers.get("retry-after")).toBe("60");
      (local.deps.clock as ReturnType<typeof createFakeClock>).advance(60_000);
      expect((await create()).status).toBe(201);
    } finally {
      await local.stop();
    }
  });
});

describe("reads with X-Anonymous-Token", () => {
  test("the endpoint", async () => {
    const answer = await read(`/${created.id}`, created.token);
    expect([answer.status, answer.body.data]).toEqual([
      200,
      {
        id: created.id,
        slug: created.slug,
        webhook_url: created.webhook_url,
        expires_at: created.expires_at,
        request_count: 1,
        last_request_at: expect.any(String),
        created_at: "2026-03-01T00:00:00.000Z",
      },
    ]);
  });

  test("its requests, with generic pagination", async () => {
    const answer = await read(`/${created.id}/requests`, created.token);
    expect(answer.status).toBe(200);
    expect({ ...answer.body, data: undefined }).toEqual({
      data: undefined,
      page: 1,
      page_size: 20,
      total: 1,
    });
    expect(answer.body.data[0]).toMatchObject({
      id: requestId,
      path: "/hook",
      query_string: "x=1",
      body: "anonymous body",
      body_encoding: "utf8",
    });
    const bad = await read(`/${created.id}/requests?page=0`, created.token);
    expect(bad.status).toBe(422);
  });

  test("one request", async () => {
    const answer = await read(`/${created.id}/requests/${requestId}`, created.token);
    expect([answer.status, answer.body.data.id]).toEqual([200, requestId]);
  });

  test.each([
    ["no token", undefined],
    ["an empty token", ""],
    ["a wrong token", "x".repeat(43)],
  ])("%s → 404 on every read", async (_label, token) => {
    for (const path of ["", "/requests", `/requests/${requestId}`]) {
      const answer = await read(`/${created.id}${path}`, token);
      expect([answer.status, answer.body]).toEqual([404, { error: "not_found" }]);
    }
  });

  test("an organization's endpoint is not reachable here → 404", async () => {
    const mine = await createDebugEndpoint(server, owner);
    expect((await read(`/${mine.id}/requests`, created.token)).status).toBe(404);
  });

  test("after 7 days → 404 (the sweep removes it later)", async () => {
    const young = (await apiCall(server, "POST", "/api/v1/anonymous-endpoints")).body.data;
    clock.advance(7 * 24 * 3_600_000 - 1);
    expect((await read(`/${young.id}`, young.token)).status).toBe(200);
    clock.advance(1);
    expect((await read(`/${young.id}`, young.token)).status).toBe(404);
  });
});
