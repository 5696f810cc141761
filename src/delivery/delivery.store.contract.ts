import { describe, expect, test } from "bun:test";
import type { DeliveryAttempt } from "./delivery.ports.ts";
import type { DeliveryRow } from "./delivery.repo.ts";
import type { DeliveryStore } from "./delivery.store.ts";

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

function rowOf(id: string, fields: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    id,
    kind: "event",
    organization_id: "org-a",
    subject_id: "s1",
    destination_key: "d1",
    webhook_id: `msg_${id}`,
    status: "pending",
    attempts: 0,
    max_retries: 3,
    attempts_before_requeue: 0,
    next_attempt_at: T0,
    locked_until: null,
    last_status_code: null,
    last_error_type: null,
    last_error_code: null,
    last_error_message: null,
    last_latency_ms: null,
    created_at: iso(T0),
    updated_at: iso(T0),
    ...fields,
  };
}

function attemptOf(deliveryId: string, attempt: number, at: number): DeliveryAttempt {
  return {
    id: `${deliveryId}-a${attempt}`,
    deliveryId,
    attempt,
    url: "https://example.com/hook",
    method: "POST",
    statusCode: 500,
    responseHeaders: [["content-type", "text/plain"]],
    responseBody: "no",
    latencyMs: 12,
    errorType: "http_error",
    errorCode: "500",
    errorMessage: "server error",
    sent: null,
    createdAt: iso(at),
  };
}

/** A store over a fresh migrated database, and a way to set a row's lease and due time. */
export interface DeliveryStoreWorld {
  store: DeliveryStore;
  /** Sets columns of a row directly (the claim's writes, which the store does not make). */
  set(
    id: string,
    fields: { next_attempt_at?: number | null; locked_until?: number | null; status?: string },
  ): Promise<void>;
}

/** One suite of behaviour, run against every implementation of DeliveryStore. */
export function describeDeliveryStore(name: string, makeWorld: () => Promise<DeliveryStoreWorld>) {
  describe(`DeliveryStore (${name})`, () => {
    test("rows come back as written; a subject's deliveries oldest first, another kind's never", async () => {
      const { store } = await makeWorld();
      await store.insert(null, [
        rowOf("b", { created_at: iso(T0 + 2) }),
        rowOf("a", { created_at: iso(T0 + 1), destination_key: "d2" }),
        rowOf("c", { subject_id: "s2" }),
        rowOf("x", { kind: "alert" }),
      ]);
      expect(await store.find("a")).toMatchObject({
        id: "a",
        webhook_id: "msg_a",
        next_attempt_at: T0,
        locked_until: null,
        attempts: 0,
      });
      expect(await store.find("nope")).toBeNull();
      expect((await store.listBySubject("event", ["s1"])).map((r) => r.id)).toEqual(["a", "b"]);
      expect((await store.listBySubject("event", ["s1", "s2"])).map((r) => r.id)).toEqual([
        "c",
        "a",
        "b",
      ]);
      expect(await store.listBySubject("event", [])).toEqual([]);
    });

    test("attempts: newest first per delivery; a subject's pages oldest first with their total", async () => {
      const { store } = await makeWorld();
      await store.insert(null, [rowOf("a"), rowOf("b", { destination_key: "d2" })]);
      for (const [id, n, at] of [
        ["a", 1, 10],
        ["a", 2, 20],
        ["b", 1, 15],
        ["a", 3, 30],
      ] as const) {
        await store.insertAttempt(null, attemptOf(id, n, T0 + at));
      }
      const latest = await store.listAttempts("a", 2);
      expect(latest.map((a) => a.attempt)).toEqual([3, 2]);
      expect(latest[0]?.responseHeaders).toEqual([["content-type", "text/plain"]]);
      const page = await store.attemptsOfSubject("event", "s1", { limit: 2, offset: 1 });
      expect(page.total).toBe(4);
      expect(page.attempts.map((a) => [a.deliveryId, a.attempt, a.destinationKey])).toEqual([
        ["b", 1, "d2"],
        ["a", 2, "d1"],
      ]);
    });

    test("finish writes the outcome only under the lease it names", async () => {
      const world = await makeWorld();
      const { store } = world;
      await store.insert(null, [rowOf("a")]);
      await world.set("a", { locked_until: T0 + 60_000 });
      const outcome = {
        id: "a",
        lockedUntil: T0 + 1,
        wasDueAt: T0,
        status: "retrying" as const,
        attempts: 1,
        nextAttemptAt: T0 + 5_000,
        statusCode: 500,
        errorType: "http_error",
        errorCode: "500",
        errorMessage: "server error",
        latencyMs: 12,
        updatedAt: iso(T0 + 100),
      };
      expect(await store.finish(null, outcome)).toBe(false);
      expect((await store.find("a"))?.attempts).toBe(0);
      expect(await store.finish(null, { ...outcome, lockedUntil: T0 + 60_000 })).toBe(true);
      expect(await store.find("a")).toMatchObject({
        status: "retrying",
        attempts: 1,
        next_attempt_at: T0 + 5_000,
        locked_until: null,
        last_status_code: 500,
        last_error_code: "500",
      });
    });

    test("requeue: a subject's failed rows (or every ended one) due now with a fresh budget", async () => {
      const world = await makeWorld();
      const { store } = world;
      await store.insert(null, [
        rowOf("f"),
        rowOf("d", { destination_key: "d2" }),
        rowOf("w", { destination_key: "d3" }),
      ]);
      await world.set("f", { status: "failed", next_attempt_at: null });
      await world.set("d", { status: "delivered", next_attempt_at: null });
      expect(await store.requeue(null, "event", "s1", false, T0 + 9)).toBe(1);
      expect(await store.find("f")).toMatchObject({ status: "retrying", next_attempt_at: T0 + 9 });
      expect((await store.find("d"))?.status).toBe("delivered");
      expect(await store.requeue(null, "event", "s1", true, T0 + 10)).toBe(1);
      expect(await store.find("d")).toMatchObject({ status: "retrying", next_attempt_at: T0 + 10 });
    });

    test("retryNow: failed requeued, waiting pulled forward, leased or due unchanged; a key narrows it", async () => {
      const world = await makeWorld();
      const { store } = world;
      const now = T0 + 1_000;
      await store.insert(null, [
        rowOf("failed", { created_at: iso(T0 + 1) }),
        rowOf("waiting", { created_at: iso(T0 + 2), destination_key: "d2" }),
        rowOf("leased", { created_at: iso(T0 + 3) }),
        rowOf("due", { created_at: iso(T0 + 4) }),
        rowOf("delivered", { created_at: iso(T0 + 5) }),
      ]);
      await world.set("failed", { status: "failed", next_attempt_at: null });
      await world.set("waiting", { status: "retrying", next_attempt_at: now + 60_000 });
      await world.set("leased", { next_attempt_at: now + 60_000, locked_until: now + 30_000 });
      await world.set("delivered", { status: "delivered", next_attempt_at: null });
      const onlyD2 = await store.retryNow(null, "event", ["s1"], "d2", now);
      expect(onlyD2.map((r) => [r.id, r.action])).toEqual([["waiting", "pulled_forward"]]);
      await world.set("waiting", { next_attempt_at: now + 60_000 });
      const all = await store.retryNow(null, "event", ["s1"], null, now);
      expect(all.map((r) => [r.id, r.action])).toEqual([
        ["failed", "requeued"],
        ["waiting", "pulled_forward"],
        ["leased", "unchanged"],
        ["due", "unchanged"],
        ["delivered", "unchanged"],
      ]);
      expect(await store.find("failed")).toMatchObject({
        status: "retrying",
        next_attempt_at: now,
      });
      expect(await store.find("waiting")).toMatchObject({
        status: "retrying",
        next_attempt_at: now,
      });
      expect((await store.find("leased"))?.next_attempt_at).toBe(now + 60_000);
      expect(await store.retryNow(null, "event", [], null, now)).toEqual([]);
    });

    test("forgetting subjects removes their deliveries with their attempts, and nothing else", async () => {
      const { store } = await makeWorld();
      await store.insert(null, [
        rowOf("a"),
        rowOf("b", { subject_id: "s2" }),
        rowOf("c", { kind: "alert" }),
      ]);
      await store.insertAttempt(null, attemptOf("a", 1, T0));
      expect(await store.forgetSubjects(null, "event", ["s1", "s9"])).toBe(1);
      expect(await store.find("a")).toBeNull();
      expect(await store.listAttempts("a", 5)).toEqual([]);
      expect((await store.find("b"))?.id).toBe("b");
      expect((await store.find("c"))?.id).toBe("c");
      expect(await store.forgetSubjects(null, "event", [])).toBe(0);
    });
  });
}
