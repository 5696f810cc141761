import { afterEach, expect, test } from "bun:test";
import { createEndpointsRepo } from "../endpoints/endpoints.repo.ts";
import { seedEndpoint, seedOrganization } from "../test-utils/capture-fixtures.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createCaptureRepo } from "./capture.repo.ts";
import { createCaptureSqliteStore } from "./capture.sqlite.ts";
import { type DrainDeps, drainHidden } from "./drain.service.ts";
import { createRequestsRepo } from "./requests.repo.ts";

const NOW = "2026-06-01T00:00:00.000Z";
let db: TestDb | null = null;
afterEach(() => {
  db?.destroy();
  db = null;
});

const idAt = (n: number) => `0190aaaa-0000-7000-8000-${String(n).padStart(12, "0")}`;
const rowsOf = (testDb: TestDb, endpointId: string) =>
  (
    testDb.sqlite
      .query("SELECT count(*) AS n FROM captured_requests WHERE endpoint_id = ?")
      .get(endpointId) as { n: number }
  ).n;
const counterOf = (testDb: TestDb, endpointId: string) =>
  (testDb.sqlite
    .query("SELECT request_count AS n, drain_pending AS pending FROM debug_endpoints WHERE id = ?")
    .get(endpointId) as { n: number; pending: number } | null) ?? null;

function seeded(count: number) {
  const testDb = createTestDb();
  seedOrganization(testDb.sqlite, "org");
  seedEndpoint(testDb.sqlite, { id: "ep", slug: "hook", organizationId: "org" });
  seedEndpoint(testDb.sqlite, { id: "other", slug: "other", organizationId: "org" });
  const requests = createRequestsRepo(testDb);
  testDb.sqlite.transaction(() => {
    for (let n = 1; n <= count; n++) {
      requests.insert(makeCapturedRequest({ id: idAt(n), endpointId: "ep" }));
    }
    requests.insert(makeCapturedRequest({ id: idAt(count + 1), endpointId: "other" }));
  })();
  return testDb;
}

/** drainHidden's deps over a real database, recording transactions, pauses and forgotten ids. */
function drainDeps(testDb: TestDb, batchSize: number) {
  const seen = { transactions: 0, pauses: 0, forgotten: [] as string[] };
  const store = createCaptureSqliteStore(testDb, {
    forgetForwards: (_tx, ids) => {
      seen.forgotten.push(...ids);
    },
    finishDrain: (_tx, endpoint) => createEndpointsRepo(testDb).finishDrain(endpoint),
  });
  const deps: DrainDeps = {
    // Each batch is one transaction of the store.
    store: {
      drainBatch: (endpoint, limit) => {
        seen.transactions += 1;
        return store.drainBatch(endpoint, limit);
      },
    },
    marks: { listDraining: async (limit) => createEndpointsRepo(testDb).listDraining(limit) },
    pause: async () => {
      seen.pauses += 1;
    },
    running: () => true,
    now: () => 0,
    batchSize,
  };
  return { deps, seen };
}

test("a deleted endpoint is drained in bounded batches with a pause between them; its row goes with the last", async () => {
  db = seeded(1_250);
  expect(createEndpointsRepo(db).deleteAnonymous("ep", NOW)).toBe(false); // not anonymous
  expect(createEndpointsRepo(db).delete("ep", "org", NOW)).toBe(true);
  const { deps, seen } = drainDeps(db, 500);
  const report = await drainHidden(deps);
  expect(report).toEqual({ requestsDeleted: 1_250, endpointsDeleted: 1 });
  expect(seen).toEqual({
    transactions: 3,
    pauses: 2,
    forgotten: Array.from({ length: 1_250 }, (_, i) => idAt(i + 1)),
  });
  expect(rowsOf(db, "ep")).toBe(0);
  expect(counterOf(db, "ep")).toBeNull();
  expect([rowsOf(db, "other"), counterOf(db, "other")?.n]).toEqual([1, 1]);
  expect(await drainHidden(deps)).toEqual({ requestsDeleted: 0, endpointsDeleted: 0 });
});

test("an emptied endpoint loses only the rows at or below its mark, and keeps its row", async () => {
  db = seeded(700);
  const endpoints = createEndpointsRepo(db);
  // An id made "before" the stored ones: the mark still covers every stored row.
  expect(endpoints.clearRequests("ep", idAt(0), NOW)).toBe(true);
  const requests = createRequestsRepo(db);
  requests.insert(makeCapturedRequest({ id: idAt(5_000), endpointId: "ep" }));
  expect(counterOf(db, "ep")).toEqual({ n: 1, pending: 1 });
  const { deps, seen } = drainDeps(db, 300);
  expect(await drainHidden(deps)).toEqual({ requestsDeleted: 700, endpointsDeleted: 0 });
  expect(seen.transactions).toBe(3);
  expect(requests.listPage("ep", 0, 10).map((r) => r.id)).toEqual([idAt(5_000)]);
  expect([rowsOf(db, "ep"), counterOf(db, "ep")]).toEqual([1, { n: 1, pending: 0 }]);
});

test("a capture whose id predates an empty it commits after is stored hidden, not counted, and drained", async () => {
  db = seeded(3);
  createEndpointsRepo(db).clearRequests("ep", idAt(10), NOW);
  const { deps } = drainDeps(db, 100);
  await drainHidden(deps);
  expect(counterOf(db, "ep")).toEqual({ n: 0, pending: 0 });
  const capture = createCaptureRepo(db);
  // One batch: a request admitted before the empty (id 9) and one after it (id 11).
  const stored = db.tx(() =>
    capture.insertRows([
      makeCapturedRequest({ id: idAt(9), endpointId: "ep" }),
      makeCapturedRequest({ id: idAt(11), endpointId: "ep" }),
    ]),
  );
  expect(stored).toEqual([true, true]);
  expect(counterOf(db, "ep")).toEqual({ n: 1, pending: 1 });
  expect(createRequestsRepo(db).count("ep")).toBe(1);
  await drainHidden(deps);
  expect([rowsOf(db, "ep"), counterOf(db, "ep")]).toEqual([1, { n: 1, pending: 0 }]);
});

test("a capture for an endpoint deleted before its batch commits is not stored", () => {
  db = seeded(0);
  createEndpointsRepo(db).delete("ep", "org", NOW);
  const capture = createCaptureRepo(db);
  const stored = db.tx(() =>
    capture.insertRows([
      makeCapturedRequest({ id: idAt(1), endpointId: "ep" }),
      makeCapturedRequest({ id: idAt(2), endpointId: "other" }),
    ]),
  );
  expect(stored).toEqual([false, true]);
  expect([rowsOf(db, "ep"), rowsOf(db, "other")]).toEqual([0, 2]);
  expect(counterOf(db, "other")?.n).toBe(2);
});
