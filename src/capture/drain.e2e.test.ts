import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { runIn } from "../test-utils/capture-fixtures.ts";
import { captureStoreOf } from "../test-utils/capture-server.ts";
import {
  type CreatedEndpoint,
  callAs,
  captureAt,
  createDebugEndpoint,
} from "../test-utils/endpoints.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { testStore } from "../test-utils/test-store.ts";
import { DRAIN_JOB } from "./drain.schedule.ts";

// The drain runs only when a test says so (manual scheduler): what a reader sees right after a
// delete or an empty is the marks' doing, with every hidden row still on disk.
let server: TestServer;
let scheduler: ManualScheduler;
let owner: TestAccount;
let sink: HttpSink;

beforeEach(async () => {
  scheduler = createManualScheduler();
  sink = startHttpSink();
  server = await startTestServer({ scheduler, config: { capture_rate_limit: "off" } });
  owner = await signUp(server, { plan: "team" });
});
afterEach(async () => {
  await server.stop();
  await sink.stop();
});

/** A count read from whichever database the server keeps its data in. */
const countOf = async (sql: string, params: unknown[]) =>
  Number((await runIn(server, sql, params))[0]?.n ?? 0);
/** Stored rows of an endpoint, hidden or not. */
const rowsOf = (endpointId: string) =>
  countOf("SELECT count(*) AS n FROM captured_requests WHERE endpoint_id = ?", [endpointId]);
/** The endpoint's stored counter (undefined once its row is gone). */
const counterOf = async (endpointId: string) => {
  const [row] = await runIn(server, "SELECT request_count AS n FROM debug_endpoints WHERE id = ?", [
    endpointId,
  ]);
  return row ? Number(row.n) : undefined;
};
/**
 * Search-index entries holding `word` (the FTS rows go with their requests, by trigger). The
 * index is SQLite's FTS5: PostgreSQL scans the rows themselves, so there is nothing to count.
 */
const withIndex = testStore() === "sqlite";
const indexed = (word: string) =>
  countOf(
    "SELECT count(*) AS n FROM captured_requests_search WHERE captured_requests_search MATCH ?",
    [word],
  );
/** Forward deliveries (outbox rows) of these requests. */
const forwardRows = (ids: string[]) =>
  countOf(
    `SELECT count(*) AS n FROM deliveries WHERE kind = 'forward' AND subject_id IN (${ids.map(() => "?").join(", ")})`,
    ids,
  );
/** What the realtime catch-up reads (the capture store's listAfter). */
const caughtUp = (endpointId: string) => captureStoreOf(server).listAfter(endpointId, null, 10);

async function captureWords(endpoint: CreatedEndpoint, words: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const word of words) {
    ids.push(
      await captureAt(server, `/w/${endpoint.slug}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ word }),
      }),
    );
  }
  return ids;
}

/** Every read of one request of the endpoint, in both families: the statuses they answer. */
async function requestReads(endpointId: string, requestId: string) {
  const paths = [
    `/api/v1/endpoints/${endpointId}/requests/${requestId}`,
    `/api/v1/endpoints/${endpointId}/requests/${requestId}/body`,
    `/api/v1/endpoints/${endpointId}/requests/${requestId}/forwards`,
    `/api/v1/debug-endpoints/${endpointId}/requests/${requestId}`,
    `/api/v1/debug-endpoints/${endpointId}/requests/${requestId}/body`,
  ];
  const statuses = [];
  for (const path of paths) statuses.push((await callAs(server, owner, "GET", path)).status);
  const replay = await callAs(
    server,
    owner,
    "POST",
    `/api/v1/endpoints/${endpointId}/requests/${requestId}/replay`,
    { url: `${sink.url}/replay` },
  );
  return [...statuses, replay.status];
}

describe("deleting an endpoint", () => {
  test("is immediate for every reader and sender and frees the slug; the drain then removes its rows, search entries and forwards", async () => {
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/fw` });
    const ids = await captureWords(endpoint, ["zebraone", "zebratwo", "zebrathree"]);
    expect(await forwardRows(ids)).toBe(3);
    // A search brings the index up to date: the rows are in it before the delete.
    const found = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${endpoint.id}/requests?q=zebraone`,
    );
    expect(found.body.total).toBe(1);
    if (withIndex) expect(await indexed("zebraone")).toBe(1);
    expect(await requestReads(endpoint.id, ids[0] as string)).toEqual([
      200, 200, 200, 200, 200, 201,
    ]);

    const deleted = await callAs(server, owner, "DELETE", `/api/v1/endpoints/${endpoint.id}`);
    expect(deleted.status).toBe(204);
    // Nothing drained yet: the rows are on disk, and no reader or sender meets them.
    expect(await rowsOf(endpoint.id)).toBe(3);
    for (const path of [
      `/api/v1/endpoints/${endpoint.id}`,
      `/api/v1/debug-endpoints/${endpoint.id}`,
      `/api/v1/endpoints/${endpoint.id}/requests`,
      `/api/v1/endpoints/${endpoint.id}/requests?q=zebraone`,
      `/api/v1/debug-endpoints/${endpoint.id}/requests`,
    ]) {
      expect([path, (await callAs(server, owner, "GET", path)).status]).toEqual([path, 404]);
    }
    expect(await requestReads(endpoint.id, ids[0] as string)).toEqual([
      404, 404, 404, 404, 404, 404,
    ]);
    for (const family of ["endpoints", "debug-endpoints"]) {
      const list = await callAs(server, owner, "GET", `/api/v1/${family}`);
      expect(JSON.stringify(list.body)).not.toContain(endpoint.id);
    }
    for (const prefix of ["/w", "/debug"]) {
      const capture = await server.request(`${prefix}/${endpoint.slug}`, { method: "POST" });
      expect([prefix, capture.status]).toEqual([prefix, 404]);
    }
    // The realtime catch-up reads through the same repo.
    expect(await caughtUp(endpoint.id)).toEqual([]);

    // The slug is free at once; the new endpoint sees none of the old rows.
    const again = await createDebugEndpoint(server, owner, { slug: endpoint.slug });
    expect(again.id).not.toBe(endpoint.id);
    const fresh = await callAs(server, owner, "GET", `/api/v1/endpoints/${again.id}/requests`);
    expect([fresh.body.total, fresh.body.data]).toEqual([0, []]);
    const searched = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${again.id}/requests?q=zebraone`,
    );
    expect(searched.body.total).toBe(0);
    const [newId] = await captureWords(again, ["okapi"]);
    const listed = await callAs(server, owner, "GET", `/api/v1/endpoints/${again.id}/requests`);
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([newId]);

    await scheduler.run(DRAIN_JOB);
    expect(await rowsOf(endpoint.id)).toBe(0);
    expect(await counterOf(endpoint.id)).toBeUndefined(); // the row went with its last request
    if (withIndex) {
      for (const word of ["zebraone", "zebratwo", "zebrathree"])
        expect(await indexed(word)).toBe(0);
    }
    expect(await forwardRows(ids)).toBe(0);
    expect(await counterOf(again.id)).toBe(await rowsOf(again.id));
  });
});

describe("emptying an endpoint", () => {
  test("is immediate for every reader; new captures show as usual; the drain removes the old rows and what hangs off them", async () => {
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/fw` });
    const ids = await captureWords(endpoint, ["lynxone", "lynxtwo", "lynxthree", "lynxfour"]);
    const found = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${endpoint.id}/requests?q=lynxfour`,
    );
    expect(found.body.total).toBe(1);
    if (withIndex) expect([await indexed("lynxone"), await indexed("lynxfour")]).toEqual([1, 1]);
    const before = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}`);
    expect(before.body.data.request_count).toBe(4);

    const emptied = await callAs(
      server,
      owner,
      "DELETE",
      `/api/v1/endpoints/${endpoint.id}/requests`,
    );
    expect(emptied.status).toBe(204);
    expect(await rowsOf(endpoint.id)).toBe(4); // hidden, not yet drained
    const view = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}`);
    expect([view.body.data.request_count, view.body.data.last_request_at]).toEqual([0, null]);
    for (const path of [
      `/api/v1/endpoints/${endpoint.id}/requests`,
      `/api/v1/endpoints/${endpoint.id}/requests?q=lynxone`,
      `/api/v1/endpoints/${endpoint.id}/requests?method=POST`,
    ]) {
      const page = await callAs(server, owner, "GET", path);
      expect([path, page.body.total, page.body.data]).toEqual([path, 0, []]);
    }
    const debugPage = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/debug-endpoints/${endpoint.id}/requests`,
    );
    expect(debugPage.body.pagination.total_count).toBe(0);
    expect(await requestReads(endpoint.id, ids[1] as string)).toEqual([
      404, 404, 404, 404, 404, 404,
    ]);
    expect(await caughtUp(endpoint.id)).toEqual([]);

    const [kept] = await captureWords(endpoint, ["ibex"]);
    const after = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}/requests`);
    expect([after.body.total, after.body.data.map((r: { id: string }) => r.id)]).toEqual([
      1,
      [kept],
    ]);
    const endpointAfter = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}`);
    expect(endpointAfter.body.data.request_count).toBe(1);

    await scheduler.run(DRAIN_JOB);
    expect(await rowsOf(endpoint.id)).toBe(1);
    expect(await counterOf(endpoint.id)).toBe(1);
    if (withIndex) expect((await indexed("lynxone")) + (await indexed("lynxfour"))).toBe(0);
    expect(await forwardRows(ids)).toBe(0);
    expect(await forwardRows([kept as string])).toBe(1);
    const drainPending = await countOf(
      "SELECT drain_pending AS n FROM debug_endpoints WHERE id = ?",
      [endpoint.id],
    );
    expect(drainPending).toBe(0);
  });
});

describe("the request counter", () => {
  test("equals the visible rows after concurrent captures, an empty and more captures", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    const other = await createDebugEndpoint(server, owner);
    const burst = (target: CreatedEndpoint, n: number) =>
      Promise.all(
        Array.from({ length: n }, () =>
          server.request(`/w/${target.slug}`, { method: "POST", body: "x" }),
        ),
      );
    // Interleaved bursts: several endpoints share one group-commit batch.
    await Promise.all([burst(endpoint, 60), burst(other, 40)]);
    expect([await counterOf(endpoint.id), await counterOf(other.id)]).toEqual([
      await rowsOf(endpoint.id),
      await rowsOf(other.id),
    ]);
    expect(await counterOf(endpoint.id)).toBe(60);

    await callAs(server, owner, "DELETE", `/api/v1/endpoints/${endpoint.id}/requests`);
    await Promise.all([burst(endpoint, 25), burst(other, 5)]);
    const visible = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}/requests`);
    expect([await counterOf(endpoint.id), visible.body.total, visible.body.data.length]).toEqual([
      25, 25, 20,
    ]);
    await scheduler.run(DRAIN_JOB);
    expect([await counterOf(endpoint.id), await counterOf(other.id)]).toEqual([
      await rowsOf(endpoint.id),
      await rowsOf(other.id),
    ]);
  });
});
