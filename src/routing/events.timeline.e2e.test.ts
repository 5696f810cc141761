import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createEventsPostgresStore } from "./events.postgres.ts";
import { createEventsSqliteStore } from "./events.sqlite.ts";

// Retries wait a minute and breakers stay open as long: whatever is delivered again within a
// test was made due by the retry under test, not by the schedule.
let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;
const sink = startHttpSink();
/** Paths the sink answers 500 on; everything else gets 200. */
const failing = new Set<string>();

beforeAll(async () => {
  server = await startTestServer({
    config: { retry_base_ms: 60_000, retry_cap_ms: 60_000, breaker_open_ms: 60_000 },
  });
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
  sink.answer((r) => (failing.has(r.path) ? { status: 500, body: "down" } : { status: 200 }));
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

interface Bridge {
  id: string;
  source_id: string;
  destinations: { id: string }[];
}

async function bridgeTo(destinations: Record<string, unknown>[]): Promise<Bridge> {
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: `Bridge ${crypto.randomUUID()}`,
    source: { name: `Source ${crypto.randomUUID()}`, type: "webhook" },
    destinations: destinations.map((d, i) => ({ name: `d${i}`, max_retries: 0, ...d })),
  });
  expect(created.status).toBe(201);
  return created.body.data;
}

async function ingest(sourceId: string, body: string, headers: Record<string, string> = {}) {
  const answer = await server.request(`/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    body,
    headers,
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { event_id: string }).event_id;
}

interface DeliveryView {
  id: string;
  error_code: string | null;
  destination_id: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  action?: string;
}
interface EventView {
  status: string;
  deliveries: DeliveryView[];
}

const eventOf = async (id: string, as: TestAccount = owner) =>
  (await callAs(server, as, "GET", `/api/v1/events/${id}`)).body.data;
const eventWhen = (id: string, ok: (e: EventView) => boolean, what: string) =>
  pollUntil(
    async () => {
      const e = await eventOf(id);
      return ok(e) ? e : undefined;
    },
    { what },
  );

describe("GET /events/{id}/attempts", () => {
  test("every attempt is kept, oldest first; members read it; another organization gets 404", async () => {
    failing.add("/timeline");
    const bridge = await bridgeTo([{ url: `${sink.url}/timeline` }]);
    const id = await ingest(bridge.source_id, '{"n":1}');
    await eventWhen(id, (e) => e.status === "failed", "the event failed");
    failing.delete("/timeline");
    const retried = await callAs(server, owner, "POST", `/api/v1/events/${id}/retry`);
    expect(retried.status).toBe(200);
    await eventWhen(id, (e) => e.status === "delivered", "the retried event delivered");

    const answer = await callAs(server, member, "GET", `/api/v1/events/${id}/attempts`);
    expect(answer.status).toBe(200);
    const [delivery] = (await eventOf(id)).deliveries;
    expect(answer.body.data).toHaveLength(2);
    expect(answer.body.data[0]).toMatchObject({
      delivery_id: delivery.id,
      destination_id: bridge.destinations[0]?.id,
      attempt_number: 1,
      status_code: 500,
      response_body: "down",
      error_type: "http_error",
      error_code: "500",
    });
    expect(answer.body.data[1]).toMatchObject({
      delivery_id: delivery.id,
      attempt_number: 2,
      status_code: 200,
      error_type: null,
    });
    expect(Object.keys(answer.body.data[0]).sort()).toEqual(
      [
        "id",
        "delivery_id",
        "destination_id",
        "attempt_number",
        "status_code",
        "response_body",
        "latency_ms",
        "error_type",
        "error_code",
        "error_message",
        "created_at",
      ].sort(),
    );
    expect(answer.body.data[0].created_at <= answer.body.data[1].created_at).toBe(true);
    expect([answer.body.page, answer.body.page_size, answer.body.total]).toEqual([1, 100, 2]);

    // Attempts come a page at a time (each keeps up to 64 KiB of its answer), oldest first.
    const paged = async (query: string) =>
      (await callAs(server, member, "GET", `/api/v1/events/${id}/attempts?${query}`)).body;
    const first = await paged("page_size=1");
    expect([first.data.length, first.data[0].attempt_number, first.total]).toEqual([1, 1, 2]);
    const second = await paged("page_size=1&page=2");
    expect([second.data.length, second.data[0].attempt_number]).toEqual([1, 2]);
    expect((await paged("page_size=500")).page_size).toBe(100);
    const bad = await callAs(server, member, "GET", `/api/v1/events/${id}/attempts?page=0`);
    expect([bad.status, Object.keys(bad.body.errors)]).toEqual([422, ["page"]]);

    const foreign = await callAs(server, stranger, "GET", `/api/v1/events/${id}/attempts`);
    expect([foreign.status, foreign.body.error]).toEqual([404, "not_found"]);
  });
});

describe("POST /events/{id}/retry", () => {
  test("a delivery waiting for its retry is sent now, its attempts unchanged; the answer says so", async () => {
    failing.add("/waiting");
    const bridge = await bridgeTo([
      { url: `${sink.url}/waiting`, max_retries: 5 },
      { url: `${sink.url}/fine` },
    ]);
    const id = await ingest(bridge.source_id, "{}");
    const waiting = await eventWhen(
      id,
      (e) => e.deliveries.some((d: DeliveryView) => d.status === "retrying" && d.attempts === 1),
      "the first delivery waiting for its retry",
    );
    const [first] = waiting.deliveries;
    expect(Date.parse(first.next_attempt_at) - Date.now()).toBeGreaterThan(30_000);
    await eventWhen(id, (e) => e.deliveries[1]?.status === "delivered", "the second delivered");
    failing.delete("/waiting");

    const denied = await callAs(server, member, "POST", `/api/v1/events/${id}/retry`);
    expect(denied.status).toBe(403);
    const retried = await callAs(server, owner, "POST", `/api/v1/events/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data.requeued).toBe(1);
    expect(
      retried.body.data.deliveries.map((d: DeliveryView) => [
        d.destination_id,
        d.action,
        d.attempts,
      ]),
    ).toEqual([
      [bridge.destinations[0]?.id, "pulled_forward", 1],
      [bridge.destinations[1]?.id, "unchanged", 1],
    ]);
    const done = await eventWhen(id, (e) => e.status === "delivered", "the pulled delivery sent");
    expect(done.deliveries[0]).toMatchObject({ status: "delivered", attempts: 2 });
  });

  test("a delivery held by its destination's open breaker is sent now: the breaker lets its probe go", async () => {
    failing.add("/breaker");
    const bridge = await bridgeTo([{ url: `${sink.url}/breaker` }]);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await ingest(bridge.source_id, `{"n":${i}}`));
    const held = await pollUntil(
      async () => {
        for (const id of ids) {
          const [d] = (await eventOf(id)).deliveries;
          if (d.error_code === "circuit_open" && d.status === "pending") return id;
        }
        return undefined;
      },
      { what: "a delivery waiting for the open breaker" },
    );
    failing.delete("/breaker");
    const retried = await callAs(server, owner, "POST", `/api/v1/events/${held}/retry`);
    expect(retried.body.data.deliveries[0].action).toBe("pulled_forward");
    // The breaker would hold it for a minute more; the retry's probe goes now and succeeds.
    await eventWhen(held, (e) => e.status === "delivered", "the held delivery sent");
  });

  test("another organization's event is a 404", async () => {
    const bridge = await bridgeTo([{ url: `${sink.url}/other` }]);
    const id = await ingest(bridge.source_id, "{}");
    const answer = await callAs(server, stranger, "POST", `/api/v1/events/${id}/retry`);
    expect(answer.status).toBe(404);
  });
});

describe("why an event was not delivered", () => {
  test("a filtered event names each destination's failing filter term", async () => {
    const bridge = await bridgeTo([
      { url: `${sink.url}/paid`, filters: [{ "body.type": "paid" }] },
      {
        url: `${sink.url}/eu`,
        filters: [{ "body.amount": { $gte: 100 } }, { "headers.x-shop": "eu" }],
      },
    ]);
    const [paid, eu] = bridge.destinations;
    const id = await ingest(bridge.source_id, '{"type":"refund","amount":500}');
    const event = await eventOf(id);
    expect(event.status).toBe("filtered");
    expect(event.filtered_by).toEqual([
      { destination_id: paid?.id, filter: 0, path: "body.type" },
      { destination_id: eu?.id, filter: 1, path: "headers.x-shop" },
    ]);
    const matched = await ingest(bridge.source_id, '{"type":"paid"}');
    expect((await eventOf(matched)).filtered_by).toEqual([]);
  });

  test("a source with no bridge leaves its events unrouted; the list filters on it; a retry routes it once a bridge exists", async () => {
    const source = await callAs(server, owner, "POST", "/api/v1/sources", {
      name: "Lonely",
      type: "webhook",
    });
    expect(source.status).toBe(201);
    const id = await ingest(source.body.data.id, "{}");
    expect((await eventOf(id)).status).toBe("unrouted");
    const listed = await callAs(server, owner, "GET", "/api/v1/events?status=unrouted");
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(id);
    const filtered = await callAs(server, owner, "GET", "/api/v1/events?status=filtered");
    expect(filtered.body.data.map((e: { id: string }) => e.id)).not.toContain(id);
    const bad = await callAs(server, owner, "GET", "/api/v1/events?status=lost");
    expect(bad.status).toBe(422);
    expect(bad.body.errors.status[0]).toContain("unrouted");

    const bridge = await callAs(server, owner, "POST", "/api/v1/bridges", {
      name: "Late",
      source_id: source.body.data.id,
      destinations: [{ name: "late", url: `${sink.url}/late` }],
    });
    expect(bridge.status).toBe(201);
    const retried = await callAs(server, owner, "POST", `/api/v1/events/${id}/retry`);
    expect(retried.body.data.requeued).toBe(1);
    expect(retried.body.data.deliveries.map((d: { action: string }) => d.action)).toEqual([
      "created",
    ]);
    await eventWhen(id, (e) => e.status === "delivered", "the routed event delivered");
  });
});

describe("event lists are bounded", () => {
  test("bodies over 64 KiB are cut in lists, flagged with their size; get-one keeps them whole", async () => {
    const source = await callAs(server, owner, "POST", "/api/v1/sources", {
      name: "Big",
      type: "webhook",
    });
    const sourceId = source.body.data.id;
    const big = "é".repeat(500_000); // 1,000,000 bytes of two-byte characters
    for (let i = 0; i < 3; i++) await ingest(sourceId, big);
    const small = await ingest(sourceId, '{"small":true}');

    const answer = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/events?page_size=100&source_id=${sourceId}`,
    );
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body).length).toBeLessThan(4 * 70_000);
    const [smallest, ...large] = answer.body.data;
    expect(smallest.id).toBe(small);
    expect(smallest.request.body).toBe('{"small":true}');
    expect(smallest.request.body_truncated).toBeUndefined();
    for (const e of large) {
      expect(e.request).toMatchObject({ body_truncated: true, body_size: 1_000_000 });
      expect(e.request.body_encoding).toBe("utf8");
      expect(e.request.body).toBe("é".repeat(32_768));
    }
    // The rows were read cut: the database handed over 64 KiB of each body, not the megabyte.
    const store = server.postgres
      ? createEventsPostgresStore(server.postgres)
      : createEventsSqliteStore(server.deps.db);
    const rows = await store.page(owner.organizationId, { sourceId }, 10, 0);
    expect(rows.events.map((e) => [e.body.byteLength, e.bodySize])).toEqual([
      [14, 14],
      [65_536, 1_000_000],
      [65_536, 1_000_000],
      [65_536, 1_000_000],
    ]);
    const whole = await eventOf(large[0].id);
    expect(whole.request.body).toBe(big);
    expect(whole.request.body_truncated).toBeUndefined();
  });
});
