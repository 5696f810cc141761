import { describe, expect, test } from "bun:test";
import type { DeliveryAttempt } from "./delivery.ports.ts";
import type { DeliveryRow } from "./delivery.repo.ts";
import type { ForwardsStore } from "./forwards.store.ts";

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** A store over a fresh migrated database, and a way to write the rows it reads beside. */
export interface ForwardsStoreWorld {
  store: ForwardsStore;
  /** Runs one statement with `?` placeholders (endpoints and requests, which other rooms own). */
  exec(statement: string, params: unknown[]): Promise<void>;
}

function replayOf(id: string, requestId: string, fields: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    id,
    kind: "forward",
    organization_id: null,
    subject_id: requestId,
    destination_key: "forward:e1",
    webhook_id: `msg_${id}`,
    status: "delivered",
    attempts: 1,
    max_retries: 0,
    attempts_before_requeue: 0,
    next_attempt_at: null,
    locked_until: null,
    last_status_code: 200,
    last_error_type: null,
    last_error_code: null,
    last_error_message: null,
    last_latency_ms: 7,
    created_at: iso(T0),
    updated_at: iso(T0),
    ...fields,
  };
}

function attemptOf(
  deliveryId: string,
  at: number,
  fields: Partial<DeliveryAttempt> = {},
): DeliveryAttempt {
  return {
    id: `${deliveryId}-a`,
    deliveryId,
    attempt: 1,
    url: "https://example.com/hook",
    method: "POST",
    statusCode: 200,
    responseHeaders: [["content-type", "text/plain"]],
    responseBody: "ok",
    latencyMs: 7,
    errorType: null,
    errorCode: null,
    errorMessage: null,
    sent: null,
    createdAt: iso(at),
    ...fields,
  };
}

async function endpoint(
  world: ForwardsStoreWorld,
  id: string,
  fields: { deletedAt?: string; clearedThrough?: string } = {},
): Promise<void> {
  await world.exec(
    `INSERT INTO debug_endpoints (id, name, slug, status, created_at, updated_at, deleted_at,
       cleared_through_id) VALUES (?, ?, ?, 'active', ?, ?, ?, ?)`,
    [
      id,
      id,
      `slug-${id}`,
      iso(T0),
      iso(T0),
      fields.deletedAt ?? null,
      fields.clearedThrough ?? null,
    ],
  );
}

async function request(world: ForwardsStoreWorld, id: string, endpointId: string): Promise<void> {
  await world.exec(
    `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string, raw_headers, body,
       size, status, created_at) VALUES (?, ?, 'POST', '/', '', '[]', ?, 0, 200, ?)`,
    [id, endpointId, new Uint8Array(0), iso(T0)],
  );
}

/** One suite of behaviour, run against every implementation of ForwardsStore. */
export function describeForwardsStore(name: string, makeWorld: () => Promise<ForwardsStoreWorld>) {
  describe(`ForwardsStore (${name})`, () => {
    test("a replay of a stored request is kept with its attempt and listed as a try", async () => {
      const world = await makeWorld();
      await endpoint(world, "e1");
      await request(world, "r1", "e1");
      expect(await world.store.insertReplay(replayOf("p1", "r1"), attemptOf("p1", T0))).toBe(true);
      expect(await world.store.count("r1")).toBe(1);
      expect(await world.store.listPage("r1", 0, 10)).toEqual([
        expect.objectContaining({
          id: "p1-a",
          requestId: "r1",
          url: "https://example.com/hook",
          method: "POST",
          statusCode: 200,
          responseHeaders: { "content-type": "text/plain" },
          responseBody: "ok",
          latencyMs: 7,
          error: null,
          attempt: 1,
          createdAt: iso(T0),
        }),
      ]);
    });

    test("no replay is kept for a request deleted, emptied away or never stored", async () => {
      const world = await makeWorld();
      await endpoint(world, "gone", { deletedAt: iso(T0) });
      await request(world, "r-gone", "gone");
      await endpoint(world, "emptied", { clearedThrough: "r-old" });
      await request(world, "r-old", "emptied");
      for (const [id, requestId] of [
        ["p1", "r-gone"],
        ["p2", "r-old"],
        ["p3", "r-never"],
      ] as const) {
        expect(await world.store.insertReplay(replayOf(id, requestId), attemptOf(id, T0))).toBe(
          false,
        );
        expect(await world.store.count(requestId)).toBe(0);
      }
    });

    test("tries come newest first, a page at a time; breaker waits and other kinds are not tries", async () => {
      const world = await makeWorld();
      await endpoint(world, "e1");
      await request(world, "r1", "e1");
      await request(world, "r2", "e1");
      for (let i = 0; i < 5; i++) {
        await world.store.insertReplay(replayOf(`p${i}`, "r1"), attemptOf(`p${i}`, T0 + i));
      }
      const wait = { errorType: "circuit_breaker_error", statusCode: null };
      await world.store.insertReplay(replayOf("w", "r1"), attemptOf("w", T0 + 9, wait));
      await world.store.insertReplay(
        replayOf("ev", "r1", { kind: "event" }),
        attemptOf("ev", T0 + 9),
      );
      await world.store.insertReplay(replayOf("other", "r2"), attemptOf("other", T0 + 9));

      expect(await world.store.count("r1")).toBe(5);
      const ids = async (offset: number, limit: number) =>
        (await world.store.listPage("r1", offset, limit)).map((r) => r.id);
      expect(await ids(0, 2)).toEqual(["p4-a", "p3-a"]);
      expect(await ids(2, 2)).toEqual(["p2-a", "p1-a"]);
      expect(await ids(4, 2)).toEqual(["p0-a"]);
      expect(await ids(6, 2)).toEqual([]);
    });
  });
}
