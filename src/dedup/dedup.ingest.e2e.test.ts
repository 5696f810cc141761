import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { onPostgres } from "../test-utils/test-store.ts";

// Deduplication through the real ingest path: receive → deduplicate → filters → events.
const clock = createFakeClock();
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  server = await startTestServer({ clock });
  owner = await signUp(server, { plan: "team" });
  stranger = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

async function createSource(config: unknown): Promise<string> {
  const answer = await callAs(server, owner, "POST", "/api/v1/sources", {
    name: `s${Math.random()}`,
    type: "webhook",
    deduplication_config: config,
  });
  expect(answer.status).toBe(201);
  return answer.body.data.id;
}

async function send(sourceId: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const eventCount = async (sourceId: string) =>
  (await callAs(server, owner, "GET", `/api/v1/events?source_id=${sourceId}`)).body.total;
const stats = async (sourceId: string, query = "", as: TestAccount = owner) =>
  callAs(server, as, "GET", `/api/v1/sources/${sourceId}/stats${query}`);

describe("ingest with deduplication", () => {
  test("a repeat within the TTL answers 200 duplicate, stores no event, and is counted", async () => {
    const id = await createSource({ body_path: "body.id", ttl_seconds: 60 });
    const first = await send(id, { id: "evt_1", n: 1 });
    expect(first).toMatchObject({ status: 200, body: { message: "accepted" } });
    expect(first.body.event_id).toEqual(expect.any(String));
    const again = await send(id, { id: "evt_1", n: 2 });
    expect(again).toEqual({ status: 200, body: { message: "duplicate", duplicate: true } });
    expect(await eventCount(id)).toBe(1);
    expect((await stats(id)).body).toEqual({
      total_requests: 2,
      duplicates_rejected: 1,
      duplicate_rate: 50,
      rejected_unverified: 0,
      period: "all_time",
    });
    expect((await send(id, { id: 1 })).body.message).toBe("accepted");
  });

  test("after the TTL the same key is accepted again", async () => {
    const id = await createSource({ body_path: "body.id", ttl_seconds: 30 });
    expect((await send(id, { id: "x" })).body.message).toBe("accepted");
    clock.advance(29_000);
    expect((await send(id, { id: "x" })).body.duplicate).toBe(true);
    clock.advance(1_000);
    expect((await send(id, { id: "x" })).body.message).toBe("accepted");
    expect(await eventCount(id)).toBe(2);
  });

  test("identical requests racing from concurrent senders yield exactly one event", async () => {
    const id = await createSource({ body_path: "body.id" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => send(id, { id: "race", amount: 5 })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.message === "accepted")).toHaveLength(1);
    expect(answers.filter((a) => a.body.duplicate === true)).toHaveLength(11);
    expect(await eventCount(id)).toBe(1);
    expect((await stats(id)).body).toMatchObject({
      total_requests: 12,
      duplicates_rejected: 11,
    });
  });

  test("include_fields: headers match case-insensitively; every listed field must match", async () => {
    const id = await createSource({ include_fields: ["headers.X-Delivery", "body.type"] });
    expect((await send(id, { type: "a", x: 1 }, { "x-delivery": "d1" })).body.message).toBe(
      "accepted",
    );
    expect((await send(id, { type: "a", x: 2 }, { "X-DELIVERY": "d1" })).body.duplicate).toBe(true);
    expect((await send(id, { type: "b" }, { "x-delivery": "d1" })).body.message).toBe("accepted");
  });

  test("exclude_fields: bodies differing only in excluded paths are duplicates", async () => {
    const id = await createSource({
      exclude_fields: ["body.timestamp", "body.meta.attempt", "body.items[*].seen"],
    });
    const body = (ts: number, amount: number) => ({
      amount,
      timestamp: ts,
      meta: { attempt: ts, shop: "eu" },
      items: [{ sku: "a", seen: ts }],
    });
    expect((await send(id, body(1, 10))).body.message).toBe("accepted");
    expect((await send(id, body(2, 10))).body.duplicate).toBe(true);
    expect((await send(id, body(3, 11))).body.message).toBe("accepted");
  });

  test("exclude_fields on a body that is not JSON compares its raw text", async () => {
    const id = await createSource({ exclude_fields: ["body.timestamp"] });
    const sendText = async (text: string) =>
      (await (
        await fetch(`${server.url}/api/v1/sources/${id}/ingest`, {
          method: "POST",
          headers: { "content-type": "text/plain" },
          body: text,
        })
      ).json()) as Record<string, unknown>;
    expect((await sendText("order=1&amount=5")).message).toBe("accepted");
    expect((await sendText("order=1&amount=5")).duplicate).toBe(true);
    expect((await sendText("order=1&amount=6")).message).toBe("accepted");
  });

  test("enabled false keeps the config, rejects nothing, and still counts every request", async () => {
    const id = await createSource({ enabled: false, body_path: "body.id" });
    for (let i = 0; i < 3; i++) expect((await send(id, { id: 1 })).body.message).toBe("accepted");
    expect((await stats(id)).body).toMatchObject({
      total_requests: 3,
      duplicates_rejected: 0,
      duplicate_rate: 0,
      rejected_unverified: 0,
    });
    const patched = await callAs(server, owner, "PATCH", `/api/v1/sources/${id}`, {
      deduplication_config: { enabled: true, body_path: "body.id" },
    });
    expect(patched.status).toBe(200);
    expect((await send(id, { id: 1 })).body.message).toBe("accepted");
    expect((await send(id, { id: 1 })).body.duplicate).toBe(true);
  });

  test("stats: periods, 422 for a bad period, 404 for another organization's source", async () => {
    const id = await createSource({ body_path: "body.id" });
    await send(id, { id: 1 });
    await send(id, { id: 1 });
    expect((await stats(id, "?period=24h")).body).toEqual({
      total_requests: 2,
      duplicates_rejected: 1,
      duplicate_rate: 50,
      rejected_unverified: 0,
      period: "24h",
    });
    const bad = await stats(id, "?period=2w");
    expect(bad.status).toBe(422);
    expect(bad.body.errors.period).toBeDefined();
    expect((await stats(id, "", stranger)).status).toBe(404);
    expect((await stats("no-such-source")).status).toBe(404);
    expect((await callAs(server, null, "GET", `/api/v1/sources/${id}/stats`)).status).toBe(401);
  });
});

describe("deleting a source", () => {
  const rowsOf = async (table: string, sourceId: string) => {
    const [row] = await serverRows<{ n: number | string }>(
      server,
      `SELECT count(*) AS n FROM ${table} WHERE source_id = $1`,
      [sourceId],
    );
    return Number(row?.n);
  };
  // SQLite logs its keys beside the in-memory index; PostgreSQL keeps them in one shared table.
  const keys = onPostgres ? "dedup_shared_keys" : "dedup_key_log";

  test("takes its dedup keys and counters with it, and leaves other sources' alone", async () => {
    const gone = await createSource({ body_path: "body.id" });
    const kept = await createSource({ body_path: "body.id" });
    for (const id of [gone, kept]) {
      await send(id, { id: "a" });
      await send(id, { id: "a" });
      await send(id, { id: "b" });
    }
    expect(await rowsOf(keys, gone)).toBe(2);
    expect(await rowsOf("dedup_counters", gone)).toBe(1);
    expect((await callAs(server, owner, "DELETE", `/api/v1/sources/${gone}`)).status).toBe(204);
    expect(await rowsOf(keys, gone)).toBe(0);
    expect(await rowsOf("dedup_counters", gone)).toBe(0);
    expect(await rowsOf(keys, kept)).toBe(2);
    expect((await stats(kept)).body).toMatchObject({
      total_requests: 3,
      duplicates_rejected: 1,
    });
    expect((await callAs(server, owner, "DELETE", `/api/v1/sources/${gone}`)).status).toBe(404);
  });
});

test("/metrics adds up the requests keyed and the time their keys took, and only those", async () => {
  const metric = async (name: string) => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1]);
  };
  const keyedBefore = await metric("weir_dedup_keyed_total");
  const secondsBefore = await metric("weir_dedup_seconds_total");
  const keyed = await createSource({ exclude_fields: ["body.ts"] });
  const plain = await createSource(null);
  for (const n of [1, 2, 2]) expect((await send(keyed, { n, ts: n })).status).toBe(200);
  for (const n of [1, 2]) expect((await send(plain, { n })).status).toBe(200);
  // Three keyed requests (the duplicate too); the source without dedup costs nothing here.
  expect((await metric("weir_dedup_keyed_total")) - keyedBefore).toBe(3);
  expect(await metric("weir_dedup_seconds_total")).toBeGreaterThan(secondsBefore);
});

describe("WEIR_DEDUP_MAX_KEYS", () => {
  // The cap bounds SQLite's in-memory key index; on PostgreSQL the keys live in the database and
  // no cap applies (docs/configuration.md, dedup_max_keys).
  test.skipIf(onPostgres)(
    "beyond the cap a fresh key is accepted and not remembered, counted in /metrics, logged once",
    async () => {
      const capped = await startTestServer({ clock, config: { dedup_max_keys: 2 } });
      try {
        const account = await signUp(capped, { plan: "team" });
        const created = await callAs(capped, account, "POST", "/api/v1/sources", {
          name: "capped",
          type: "webhook",
          deduplication_config: { body_path: "body.id" },
        });
        const id = created.body.data.id as string;
        const post = async (body: unknown) =>
          (await (
            await capped.request(`/api/v1/sources/${id}/ingest`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(body),
            })
          ).json()) as Record<string, unknown>;
        const messages: unknown[] = [];
        for (const n of [1, 2, 3, 3, 4, 1]) {
          const answer = await post({ id: n });
          messages.push(answer.duplicate === true ? "duplicate" : answer.message);
        }
        // 1 and 2 are remembered; 3 and 4 are not, so the repeat of 3 is a second event.
        expect(messages).toEqual([
          "accepted",
          "accepted",
          "accepted",
          "accepted",
          "accepted",
          "duplicate",
        ]);
        const events = await callAs(capped, account, "GET", `/api/v1/events?source_id=${id}`);
        expect(events.body.total).toBe(5);
        const metrics = await (await capped.request("/metrics")).text();
        expect(metrics).toContain("weir_dedup_keys 2\n");
        expect(metrics).toContain("weir_dedup_keys_max 2\n");
        expect(metrics).toContain("weir_dedup_keys_unremembered_total 3\n");
        expect(capped.logs.filter((line) => line.includes("WEIR_DEDUP_MAX_KEYS"))).toHaveLength(1);
      } finally {
        await capped.stop();
      }
    },
  );
});

describe("WEIR_DEDUP_MAX_KEYS_PER_ORGANIZATION", () => {
  // The cap bounds SQLite's in-memory key index; on PostgreSQL keys live in the database and
  // no share of a cap applies (docs/configuration.md, dedup_max_keys).
  test.skipIf(onPostgres)(
    "one organization filling its share of the cap does not let another's duplicates through",
    async () => {
      const shared = await startTestServer({
        clock,
        config: { dedup_max_keys: 6, dedup_max_keys_per_organization: 3 },
      });
      try {
        let sources = 0;
        const sourceOf = async (account: TestAccount) => {
          sources += 1;
          const created = await callAs(shared, account, "POST", "/api/v1/sources", {
            name: `keyed ${sources}`,
            type: "webhook",
            deduplication_config: { body_path: "body.id" },
          });
          return created.body.data.id as string;
        };
        const post = async (id: string, body: unknown) => {
          const response = await shared.request(`/api/v1/sources/${id}/ingest`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          });
          const answer = (await response.json()) as Record<string, unknown>;
          return answer.duplicate === true ? "duplicate" : answer.message;
        };
        const noisy = await signUp(shared, { plan: "team" });
        const quiet = await signUp(shared, { plan: "team" });
        // The noisy organization sends more fresh keys than the whole cap, over two sources.
        const [first, second] = [await sourceOf(noisy), await sourceOf(noisy)];
        for (let n = 1; n <= 4; n++)
          expect(await post(first as string, { id: n })).toBe("accepted");
        for (let n = 5; n <= 8; n++)
          expect(await post(second as string, { id: n })).toBe("accepted");
        // Only its share is remembered: 1, 2 and 3.
        expect(await post(first as string, { id: 3 })).toBe("duplicate");
        expect(await post(first as string, { id: 4 })).toBe("accepted");
        // The quiet organization's keys still find room, and its duplicates are caught.
        const mine = await sourceOf(quiet);
        expect(await post(mine, { id: "x" })).toBe("accepted");
        expect(await post(mine, { id: "x" })).toBe("duplicate");
        const warned = shared.logs.filter((l) =>
          l.includes("WEIR_DEDUP_MAX_KEYS_PER_ORGANIZATION"),
        );
        expect(warned).toHaveLength(1);
        expect(warned[0]).toContain(noisy.organizationId);
      } finally {
        await shared.stop();
      }
    },
  );
});
