import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
let slug: string;
let sourceId: string;
let bridgeId: string;

const PAID_ONLY = [{ "body.type": { $eq: "paid" } }];

beforeAll(async () => {
  server = await startTestServer({ config: { max_body_bytes: 4096 } });
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
  const bridge = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Payments",
    source: { name: "Stripe", type: "webhook" },
    destinations: [{ name: "Paid", type: "http", url: "http://127.0.0.1:9/", filters: PAID_ONLY }],
  });
  bridgeId = bridge.body.data.id;
  sourceId = bridge.body.data.source_id;
  const source = await callAs(server, owner, "GET", `/api/v1/sources/${sourceId}`);
  slug = source.body.data.slug;
});
afterAll(() => server.stop());

async function ingest(path: string, init: RequestInit) {
  const response = await fetch(`${server.url}${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const eventOf = async (id: unknown) =>
  (await callAs(server, owner, "GET", `/api/v1/events/${id}`)).body.data;

describe("ingest", () => {
  test("any method on /in/{slug}/sub/path stores the request byte-exact", async () => {
    const bytes = new Uint8Array([0, 159, 146, 150, 255, 10, 13]);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const answer = await ingest(`/in/${slug}/a/b?x=1&x=2&y=%20`, {
        method,
        headers: { "content-type": "application/octet-stream", "X-Custom": "One" },
        body: bytes,
      });
      expect(answer.status).toBe(200);
      expect(answer.body.message).toBe("accepted");
      const event = await eventOf(answer.body.event_id);
      expect(event.request.method).toBe(method);
      expect(event.request.path).toBe("/a/b");
      expect(event.request.query_string).toBe("x=1&x=2&y=%20");
      expect(event.request.headers["x-custom"]).toBe("One");
      expect(event.request.body_encoding).toBe("base64");
      expect(new Uint8Array(Buffer.from(event.request.body, "base64"))).toEqual(bytes);
    }
  });

  test("GET with no body is accepted too", async () => {
    const answer = await ingest(`/in/${slug}`, { method: "GET" });
    expect(answer.status).toBe(200);
  });

  test("POST /api/v1/sources/{id}/ingest needs no credentials", async () => {
    const answer = await ingest(`/api/v1/sources/${sourceId}/ingest?k=v`, {
      method: "POST",
      body: '{"type":"paid"}',
    });
    expect(answer.status).toBe(200);
    const event = await eventOf(answer.body.event_id);
    expect([event.source_id, event.bridge_id, event.request.body]).toEqual([
      sourceId,
      bridgeId,
      '{"type":"paid"}',
    ]);
    expect(event.request.query).toEqual({ k: "v" });
  });

  test("unknown source → 404 JSON", async () => {
    expect(await ingest("/in/no-such-source", { method: "POST", body: "{}" })).toEqual({
      status: 404,
      body: { error: "not_found" },
    });
    const byId = await ingest("/api/v1/sources/nope/ingest", { method: "POST", body: "{}" });
    expect(byId).toEqual({ status: 404, body: { error: "not_found" } });
  });

  test("a body over max_body_bytes → 413 JSON, nothing stored", async () => {
    const before = (await callAs(server, owner, "GET", "/api/v1/events")).body.total;
    const answer = await ingest(`/in/${slug}`, { method: "POST", body: "x".repeat(5000) });
    expect(answer).toEqual({ status: 413, body: { error: "payload_too_large" } });
    expect((await callAs(server, owner, "GET", "/api/v1/events")).body.total).toBe(before);
  });
});

describe("event status", () => {
  test("matching a filter → pending with the bridge; no match → filtered; non-JSON → filtered", async () => {
    const paid = await ingest(`/in/${slug}`, { method: "POST", body: '{"type":"paid"}' });
    const refunded = await ingest(`/in/${slug}`, { method: "POST", body: '{"type":"refund"}' });
    const text = await ingest(`/in/${slug}`, { method: "POST", body: "type=paid" });
    expect((await eventOf(paid.body.event_id)).status).toBe("pending");
    expect((await eventOf(refunded.body.event_id)).status).toBe("filtered");
    expect((await eventOf(text.body.event_id)).status).toBe("filtered");
  });

  test("a paused bridge stores the event as paused", async () => {
    await callAs(server, owner, "PATCH", `/api/v1/bridges/${bridgeId}`, { status: "paused" });
    const answer = await ingest(`/in/${slug}`, { method: "POST", body: '{"type":"paid"}' });
    await callAs(server, owner, "PATCH", `/api/v1/bridges/${bridgeId}`, { status: "active" });
    const event = await eventOf(answer.body.event_id);
    expect([event.status, event.deliveries]).toEqual(["paused", []]);
  });
});

describe("events API", () => {
  test("list: generic pagination, newest first, narrowed by status, source, bridge, dates", async () => {
    const all = await callAs(server, owner, "GET", "/api/v1/events?page_size=2");
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(["data", "page", "page_size", "total"]);
    expect(all.body.data.length).toBe(2);
    expect(all.body.data[0].created_at >= all.body.data[1].created_at).toBe(true);
    const paused = await callAs(server, owner, "GET", "/api/v1/events?status=paused");
    expect(paused.body.total).toBe(1);
    const bySource = await callAs(server, owner, "GET", `/api/v1/events?source_id=${sourceId}`);
    expect(bySource.body.total).toBe(all.body.total);
    const byBridge = await callAs(server, owner, "GET", `/api/v1/events?bridge_id=nope`);
    expect(byBridge.body.total).toBe(0);
    const future = await callAs(server, owner, "GET", "/api/v1/events?since=2999-01-01T00:00:00Z");
    expect(future.body.total).toBe(0);
    const past = await callAs(server, owner, "GET", "/api/v1/events?until=2000-01-01T00:00:00Z");
    expect(past.body.total).toBe(0);
  });

  test.each([
    ["status=nope", "status"],
    ["since=yesterday", "since"],
    ["page=0", "page"],
  ])("?%s → 422 naming %s", async (query, key) => {
    const answer = await callAs(server, owner, "GET", `/api/v1/events?${query}`);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([key]);
  });

  test("roles and isolation: members read, admins retry, another organization sees 404", async () => {
    const answer = await ingest(`/in/${slug}`, { method: "POST", body: '{"type":"x"}' });
    const id = answer.body.event_id;
    expect((await callAs(server, member, "GET", `/api/v1/events/${id}`)).status).toBe(200);
    expect((await callAs(server, member, "GET", "/api/v1/events")).status).toBe(200);
    const retry = await callAs(server, member, "POST", `/api/v1/events/${id}/retry`);
    expect([retry.status, retry.body]).toEqual([403, { error: "forbidden" }]);
    for (const [method, path] of [
      ["GET", `/api/v1/events/${id}`],
      ["POST", `/api/v1/events/${id}/retry`],
    ] as const) {
      const foreign = await callAs(server, stranger, method, path);
      expect([foreign.status, foreign.body]).toEqual([404, { error: "not_found" }]);
    }
    expect((await callAs(server, stranger, "GET", "/api/v1/events")).body.total).toBe(0);
    expect((await callAs(server, null, "GET", "/api/v1/events")).status).toBe(401);
  });
});

describe("/metrics", () => {
  test("counts the filter evaluations of the ingest path and the time they took", async () => {
    const read = async () => {
      const text = await (await server.request("/metrics")).text();
      const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
      return {
        evaluations: value("weir_ingest_filter_evaluations_total"),
        seconds: value("weir_ingest_filter_seconds_total"),
      };
    };
    const before = await read();
    for (let i = 0; i < 3; i++) {
      await ingest(`/in/${slug}`, { method: "POST", body: '{"type":"paid"}' });
    }
    const after = await read();
    expect(after.evaluations - before.evaluations).toBe(3);
    expect(after.seconds).toBeGreaterThan(before.seconds);
  });
});
