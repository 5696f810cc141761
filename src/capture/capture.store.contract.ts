import { describe, expect, test } from "bun:test";
import type { DrainingEndpoint } from "../endpoints/endpoints.model.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import type { CapturedRequest } from "./capture.model.ts";
import type { CaptureStore } from "./capture.store.ts";
import { NO_FILTER, type RequestFilter } from "./request-filter.model.ts";
import { BODY_PREVIEW_LIMIT } from "./requests.model.ts";

/** Rows written around the store, in either dialect (`$1`-style parameters). */
export interface CaptureStoreWorld {
  store: CaptureStore;
  /** Runs a statement of the fixture and returns its rows. */
  run(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** What the store's transactions handed the other rooms' ports. */
  forgotten: string[][];
  finished: DrainingEndpoint[];
}

const T0 = "2026-01-01T00:00:00.000Z";

async function organization(world: CaptureStoreWorld, id: string, plan = "team") {
  await world.run(
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
    [id, `org ${id}`, plan, T0],
  );
}

async function endpoint(world: CaptureStoreWorld, id: string, organizationId: string | null) {
  await world.run(
    `INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'active', $5, $5)`,
    [id, organizationId, `endpoint ${id}`, `slug-${id}`, T0],
  );
}

async function counterOf(world: CaptureStoreWorld, id: string) {
  const [row] = await world.run(
    "SELECT request_count AS n, drain_pending AS d FROM debug_endpoints WHERE id = $1",
    [id],
  );
  return { count: Number(row?.n), drainPending: Number(row?.d) };
}

async function seed(world: CaptureStoreWorld) {
  await organization(world, "org-a", "team");
  await organization(world, "org-b", "free");
  await endpoint(world, "ep-a", "org-a");
  await endpoint(world, "ep-b", "org-b");
  await endpoint(world, "ep-anon", null);
}

/** Stores requests r01…rNN on the endpoint through the store, one second apart. */
async function stored(world: CaptureStoreWorld, endpointId: string, n: number, prefix = "r") {
  const made: CapturedRequest[] = [];
  for (let i = 1; i <= n; i++) {
    const request = makeCapturedRequest({
      id: `${prefix}${String(i).padStart(2, "0")}`,
      endpointId,
      createdAt: `2026-01-01T00:00:${String(i).padStart(2, "0")}.000Z`,
    });
    await world.store.insert(request);
    made.push(request);
  }
  return made;
}

const ids = (requests: readonly CapturedRequest[]) => requests.map((r) => r.id);
const filter = (fields: Partial<RequestFilter>): RequestFilter => ({ ...NO_FILTER, ...fields });

/** One suite of behaviour, run against every implementation of CaptureStore. */
export function describeCaptureStore(name: string, makeWorld: () => Promise<CaptureStoreWorld>) {
  describe(`CaptureStore (${name})`, () => {
    test("finds a live endpoint by slug with its plan; anonymous is free, deleted is gone", async () => {
      const world = await makeWorld();
      await seed(world);
      const found = await world.store.findEndpoint("slug-ep-a");
      expect(found).toMatchObject({ id: "ep-a", organizationId: "org-a", plan: "team" });
      expect(found?.response).toBeNull();
      expect((await world.store.findEndpoint("slug-ep-anon"))?.plan).toBe("free");
      expect(await world.store.findEndpoint("slug-none")).toBeNull();
      await world.run("UPDATE debug_endpoints SET deleted_at = $1 WHERE id = 'ep-a'", [T0]);
      expect(await world.store.findEndpoint("slug-ep-a")).toBeNull();
    });

    test("reads back a stored request byte-exact and counts it on its endpoint only", async () => {
      const world = await makeWorld();
      await seed(world);
      const request = makeCapturedRequest({
        id: "r1",
        endpointId: "ep-a",
        body: new Uint8Array([0, 255, 128, 10]),
        rawHeaders: [
          ["X-A", "1"],
          ["x-a", "2"],
        ],
        verification: { status: "invalid", reason: "bad signature" },
      });
      await world.store.insert(request);
      expect(await world.store.find("ep-a", "r1")).toEqual(request);
      expect(await world.store.find("ep-b", "r1")).toBeNull();
      expect(await world.store.count("ep-a")).toBe(1);
      expect(await world.store.count("ep-b")).toBe(0);
      expect(await world.store.countStored("ep-a")).toBe(1);
      await world.store.setAnsweredStatus("r1", 418);
      expect((await world.store.find("ep-a", "r1"))?.status).toBe(418);
    });

    test("pages newest first and lists after an id oldest first, with body previews", async () => {
      const world = await makeWorld();
      await seed(world);
      await stored(world, "ep-a", 5);
      await stored(world, "ep-b", 2, "s");
      expect(ids(await world.store.listPage("ep-a", 0, 2))).toEqual(["r05", "r04"]);
      expect(ids(await world.store.listPage("ep-a", 2, 2))).toEqual(["r03", "r02"]);
      expect(ids(await world.store.listPage("ep-a", 4, 2))).toEqual(["r01"]);
      expect(ids(await world.store.listAfter("ep-a", "r02", 2))).toEqual(["r03", "r04"]);
      expect(ids(await world.store.listAfter("ep-a", null, 10))).toHaveLength(5);
      const big = makeCapturedRequest({
        id: "r99",
        endpointId: "ep-a",
        body: "x".repeat(BODY_PREVIEW_LIMIT + 10),
      });
      await world.store.insert(big);
      const [preview] = await world.store.listPage("ep-a", 0, 1);
      expect(preview?.body.byteLength).toBe(BODY_PREVIEW_LIMIT);
      expect(preview?.size).toBe(BODY_PREVIEW_LIMIT + 10);
      expect((await world.store.find("ep-a", "r99"))?.body.byteLength).toBe(
        BODY_PREVIEW_LIMIT + 10,
      );
      const empty = makeCapturedRequest({ id: "s03", endpointId: "ep-b", body: "" });
      await world.store.insert(empty);
      expect((await world.store.listAfter("ep-b", "s02", 1))[0]?.body).toEqual(new Uint8Array());
    });

    test("an empty hides requests at or below its mark; a delete hides them all", async () => {
      const world = await makeWorld();
      await seed(world);
      await stored(world, "ep-a", 4);
      await world.run(
        "UPDATE debug_endpoints SET cleared_through_id = 'r02', request_count = 0, drain_pending = 1 WHERE id = 'ep-a'",
      );
      expect(ids(await world.store.listPage("ep-a", 0, 10))).toEqual(["r04", "r03"]);
      expect(ids(await world.store.listAfter("ep-a", null, 10))).toEqual(["r03", "r04"]);
      expect(await world.store.find("ep-a", "r01")).toBeNull();
      expect(await world.store.countMatching("ep-a", filter({ methods: ["POST"] }))).toBe(2);
      await world.run("UPDATE debug_endpoints SET deleted_at = $1 WHERE id = 'ep-a'", [T0]);
      expect(await world.store.listPage("ep-a", 0, 10)).toEqual([]);
      expect(await world.store.count("ep-a")).toBe(0);
      expect(await world.store.find("ep-a", "r04")).toBeNull();
    });

    test("filters by method, time and verification, newest first, counting the matches", async () => {
      const world = await makeWorld();
      await seed(world);
      await stored(world, "ep-a", 3);
      await world.store.insert(
        makeCapturedRequest({
          id: "r04",
          endpointId: "ep-a",
          method: "PUT",
          createdAt: "2026-01-01T00:00:04.000Z",
          verification: { status: "valid", reason: null },
        }),
      );
      const put = filter({ methods: ["PUT", "DELETE"] });
      expect(ids(await world.store.listMatching("ep-a", put, 0, 10))).toEqual(["r04"]);
      const window = filter({
        since: "2026-01-01T00:00:02.000Z",
        until: "2026-01-01T00:00:04.000Z",
      });
      expect(ids(await world.store.listMatching("ep-a", window, 0, 10))).toEqual(["r03", "r02"]);
      expect(await world.store.countMatching("ep-a", window)).toBe(2);
      expect(ids(await world.store.listMatching("ep-a", window, 1, 10))).toEqual(["r02"]);
      const unchecked = filter({ verification: ["not_configured"] });
      expect(await world.store.countMatching("ep-a", unchecked)).toBe(3);
      expect(await world.store.countMatching("ep-b", put)).toBe(0);
    });

    test("searches text as documented: one word from a word's start, longer text anywhere", async () => {
      const world = await makeWorld();
      await seed(world);
      const texts = [
        '{"type":"invoice.paid","id":"edle-4711"}',
        '{"type":"Customer.Created"}',
        "plain {} braces",
        "caf\u00e9 au lait",
      ];
      for (const [i, body] of texts.entries()) {
        await world.store.insert(
          makeCapturedRequest({ id: `r0${i + 1}`, endpointId: "ep-a", body, path: "/hooks" }),
        );
      }
      await world.store.insert(
        makeCapturedRequest({
          id: "r09",
          endpointId: "ep-a",
          body: new Uint8Array([0xff, 0x00, 0x41]),
        }),
      );
      await world.store.insert(
        makeCapturedRequest({ id: "s01", endpointId: "ep-b", body: "invoice" }),
      );
      const found = async (q: string) =>
        ids(await world.store.listMatching("ep-a", filter({ q }), 0, 10));
      expect(await found("invoice")).toEqual(["r01"]);
      expect(await found("inv")).toEqual(["r01"]);
      expect(await found("voice")).toEqual([]);
      expect(await found("INVOICE")).toEqual(["r01"]);
      expect(await found("voice.paid")).toEqual(["r01"]);
      expect(await found("edle-4711")).toEqual(["r01"]);
      expect(await found("customer.created")).toEqual(["r02"]);
      expect(await found("{}")).toEqual(["r03"]);
      expect(await found("caf\u00e9")).toEqual(["r04"]);
      // Bytes that are not UTF-8 text are searched as bytes; their values are not words.
      expect(await found("303")).toEqual([]);
      expect(await found("377")).toEqual([]);
      expect(await found("hooks")).toEqual(["r04", "r03", "r02", "r01"]);
      expect(await found("content-type: nothing")).toEqual([]);
      expect(await world.store.countMatching("ep-a", filter({ q: "created" }))).toBe(1);
    });

    test("retention deletes the oldest requests before the cutoff and uncounts the visible ones", async () => {
      const world = await makeWorld();
      await seed(world);
      await stored(world, "ep-a", 5);
      await stored(world, "ep-b", 2, "s");
      await world.run(
        "UPDATE debug_endpoints SET cleared_through_id = 'r01', request_count = 4 WHERE id = 'ep-a'",
      );
      const cutoff = "2026-01-01T00:00:04.000Z";
      expect(await world.store.deleteRequestsBefore("ep-a", cutoff, 2)).toBe(2);
      expect(world.forgotten).toEqual([["r01", "r02"]]);
      expect((await counterOf(world, "ep-a")).count).toBe(3);
      expect(await world.store.deleteRequestsBefore("ep-a", cutoff, 2)).toBe(1);
      expect(await world.store.deleteRequestsBefore("ep-a", cutoff, 2)).toBe(0);
      expect(ids(await world.store.listAfter("ep-a", null, 10))).toEqual(["r04", "r05"]);
      expect(await world.store.count("ep-a")).toBe(2);
      expect(await world.store.count("ep-b")).toBe(2);
    });

    test("two sweeps of one endpoint at once delete each request once and keep the counter exact", async () => {
      const world = await makeWorld();
      await seed(world);
      await stored(world, "ep-a", 6);
      const cutoff = "2026-01-01T00:00:05.000Z";
      const [first, second] = await Promise.all([
        world.store.deleteRequestsBefore("ep-a", cutoff, 3),
        world.store.deleteRequestsBefore("ep-a", cutoff, 3),
      ]);
      expect((first ?? 0) + (second ?? 0)).toBe(4);
      expect(world.forgotten.flat().sort()).toEqual(["r01", "r02", "r03", "r04"]);
      expect(await world.store.count("ep-a")).toBe(2);
      expect(ids(await world.store.listAfter("ep-a", null, 10))).toEqual(["r05", "r06"]);
    });

    test("retention pages live endpoints in id order with their plans", async () => {
      const world = await makeWorld();
      await seed(world);
      await world.run("UPDATE debug_endpoints SET deleted_at = $1 WHERE id = 'ep-b'", [T0]);
      expect(await world.store.endpointsAfter("", 10)).toEqual([
        { id: "ep-a", organizationId: "org-a", plan: "team" },
        { id: "ep-anon", organizationId: null, plan: "free" },
      ]);
      expect((await world.store.endpointsAfter("ep-a", 1)).map((e) => e.id)).toEqual(["ep-anon"]);
    });

    test("the drain deletes hidden requests in batches and finishes in the last batch", async () => {
      const world = await makeWorld();
      await seed(world);
      await stored(world, "ep-a", 5);
      await stored(world, "ep-b", 3, "s");
      const emptied = { endpointId: "ep-a", deleted: false, clearedThroughId: "r03" };
      expect(await world.store.drainBatch(emptied, 2)).toEqual({ deleted: 2, finished: false });
      expect(world.finished).toEqual([]);
      expect(await world.store.drainBatch(emptied, 2)).toEqual({ deleted: 1, finished: true });
      expect(world.forgotten).toEqual([["r01", "r02"], ["r03"]]);
      expect(world.finished).toEqual([emptied]);
      const deleted = { endpointId: "ep-b", deleted: true, clearedThroughId: null };
      expect(await world.store.drainBatch(deleted, 3)).toEqual({ deleted: 3, finished: false });
      expect(await world.store.drainBatch(deleted, 3)).toEqual({ deleted: 0, finished: true });
      const left = await world.run("SELECT id FROM captured_requests ORDER BY id");
      expect(left.map((row) => row.id)).toEqual(["r04", "r05"]);
    });

    test("anonymous bytes count live anonymous endpoints' visible requests only", async () => {
      const world = await makeWorld();
      await seed(world);
      await stored(world, "ep-anon", 3);
      await stored(world, "ep-a", 1, "a");
      const each = makeCapturedRequest({ id: "x", endpointId: "ep-anon" }).size;
      expect(await world.store.anonymousStoredBytes()).toBe(3 * each);
      await world.run("UPDATE debug_endpoints SET cleared_through_id = 'r01' WHERE id = 'ep-anon'");
      expect(await world.store.anonymousStoredBytes()).toBe(2 * each);
    });

    test("refusals add up per endpoint and skip a deleted one", async () => {
      const world = await makeWorld();
      await seed(world);
      const at = "2026-01-01T00:01:00.000Z";
      await world.store.addRefusals([
        { endpointId: "ep-a", rateLimited: 2, tooLarge: 1, lastRefusedAt: T0 },
        { endpointId: "gone", rateLimited: 1, tooLarge: 0, lastRefusedAt: T0 },
      ]);
      await world.store.addRefusals([
        { endpointId: "ep-a", rateLimited: 3, tooLarge: 0, lastRefusedAt: at },
      ]);
      const rows = await world.run(
        "SELECT endpoint_id AS e, rate_limited AS r, too_large AS t, last_refused_at AS l FROM capture_refusals",
      );
      expect(rows.map((row) => [row.e, Number(row.r), Number(row.t), row.l])).toEqual([
        ["ep-a", 5, 1, at],
      ]);
    });
  });
}
