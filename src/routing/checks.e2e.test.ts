import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// The editors' dry runs: a draft filter list tried on stored events, and two requests keyed under
// a source's dedup settings, both through the ingest's own code.
let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
let sourceId: string;
let slug: string;
const ids: Record<string, string> = {};

async function ingest(body: unknown): Promise<string> {
  const response = await fetch(`${server.url}/in/${slug}`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { event_id: string }).event_id;
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
  const created = await callAs(server, owner, "POST", "/api/v1/sources", { name: "Shop" });
  sourceId = created.body.data.id;
  slug = created.body.data.slug;
  ids.paid = await ingest({ type: "paid", amount: 150 });
  ids.refund = await ingest({ type: "refund", amount: 20 });
});
afterAll(() => server.stop());

const tryFilters = (as: TestAccount, body: unknown) =>
  callAs(server, as, "POST", "/api/v1/filters/test", body);

describe("POST /api/v1/filters/test", () => {
  test("a member tries a filter on the source's recent events: pass or fail, and why", async () => {
    const answer = await tryFilters(member, {
      filters: [{ "body.type": "paid", "body.amount": { $gte: 100 } }],
      source_id: sourceId,
    });
    expect(answer.status).toBe(200);
    const results = answer.body.data.results as { event_id: string }[];
    expect(answer.body.data.valid).toBe(true);
    const byId = Object.fromEntries(results.map((r) => [r.event_id, r]));
    expect(byId[ids.paid as string]).toMatchObject({ matched: true, failed: null });
    expect(byId[ids.refund as string]).toMatchObject({
      matched: false,
      failed: { filter: 0, path: "body.type" },
    });
  });

  test("one event by id; no event named: valid with no results", async () => {
    const one = await tryFilters(owner, {
      filters: [{ "body.type": "refund" }],
      event_id: ids.paid,
    });
    expect(one.body.data.results).toMatchObject([{ event_id: ids.paid, matched: false }]);
    const none = await tryFilters(owner, { filters: [] });
    expect([none.status, none.body]).toEqual([200, { data: { valid: true, results: [] } }]);
  });

  test("limit keeps to the newest events and refuses more than 20", async () => {
    const one = await tryFilters(owner, { filters: [], source_id: sourceId, limit: 1 });
    expect(one.body.data.results).toHaveLength(1);
    const many = await tryFilters(owner, { filters: [], source_id: sourceId, limit: 21 });
    expect(many.status).toBe(422);
    expect(Object.keys(many.body.errors)).toEqual(["limit"]);
  });

  test("an invalid filter is the 422 saving it gives, at the same field path", async () => {
    const draft = [{ "body.amount": { $gte: 1, $bogus: 2 } }];
    const answer = await tryFilters(owner, { filters: draft, source_id: sourceId });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe("validation_failed");
    const keys = Object.keys(answer.body.errors);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toStartWith("filters[0].body.amount");
    const bridge = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Same errors",
      source_id: sourceId,
      destinations: [{ name: "D", type: "http", url: "http://127.0.0.1:9/", filters: draft }],
    });
    expect(Object.keys(bridge.body.errors)).toEqual([`destinations[0].${keys[0]}`]);
    const notArray = await tryFilters(owner, { filters: { "body.type": "x" } });
    expect([notArray.status, Object.keys(notArray.body.errors)]).toEqual([422, ["filters"]]);
  });

  test("another organization's event or source is a 404", async () => {
    const event = await tryFilters(stranger, { filters: [], event_id: ids.paid });
    expect([event.status, event.body]).toEqual([404, { error: "not_found" }]);
    const source = await tryFilters(stranger, { filters: [], source_id: sourceId });
    expect([source.status, source.body]).toEqual([404, { error: "not_found" }]);
  });
});

const check = (as: TestAccount, body: unknown, id = sourceId) =>
  callAs(server, as, "POST", `/api/v1/sources/${id}/dedup/check`, body);

describe("POST /api/v1/sources/{id}/dedup/check", () => {
  test("draft settings: the same id is a duplicate, a different one is not", async () => {
    const settings = { body_path: "body.id", ttl_seconds: 60 };
    const same = await check(member, {
      a: { body: '{"id":"evt_1","n":1}' },
      b: { body: '{ "n": 2, "id": "evt_1" }' },
      settings,
    });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ duplicate: true, enabled: true, window_seconds: 60 });
    expect(same.body.data.key_a).toMatch(/^[0-9a-f]{64}$/);
    expect(same.body.data.key_b).toBe(same.body.data.key_a);
    const other = await check(member, {
      a: { body: '{"id":"evt_1"}' },
      b: { body: '{"id":"evt_2"}' },
      settings,
    });
    expect(other.body.data.duplicate).toBe(false);
    expect(other.body.data.key_b).not.toBe(other.body.data.key_a);
  });

  test("headers are keyed whatever their case, as ingest lowercases them", async () => {
    const answer = await check(owner, {
      a: { headers: { "X-Delivery": "d1" }, body: "x" },
      b: { headers: { "x-delivery": "d1" }, body: "y" },
      settings: { include_fields: ["headers.x-delivery"] },
    });
    expect(answer.body.data.duplicate).toBe(true);
  });

  test("the saved settings by default, and the key ingest stores: a real duplicate agrees", async () => {
    const saved = await callAs(server, owner, "PATCH", `/api/v1/sources/${sourceId}`, {
      deduplication_config: { include_fields: ["body.order"] },
    });
    expect(saved.status).toBe(200);
    const answer = await check(owner, {
      a: { body: '{"order":7,"at":1}' },
      b: { body: '{"order":7,"at":2}' },
    });
    expect(answer.body.data).toMatchObject({ duplicate: true, window_seconds: 300 });
    await ingest({ order: 7, at: 1 });
    const second = await fetch(`${server.url}/in/${slug}`, {
      method: "POST",
      body: JSON.stringify({ order: 7, at: 2 }),
    });
    expect(((await second.json()) as { duplicate?: boolean }).duplicate).toBe(true);
  });

  test("invalid draft settings are a 422 naming the settings field", async () => {
    const answer = await check(owner, {
      a: { body: "{}" },
      b: { body: "{}" },
      settings: { body_path: "nope.x" },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(["settings.body_path"]);
    const missing = await check(owner, { a: {}, settings: { body_path: "body.id" } });
    expect([missing.status, Object.keys(missing.body.errors)]).toEqual([422, ["b"]]);
  });

  test("another organization's source is a 404", async () => {
    const answer = await check(stranger, { a: {}, b: {}, settings: { body_path: "body.id" } });
    expect([answer.status, answer.body]).toEqual([404, { error: "not_found" }]);
  });
});
