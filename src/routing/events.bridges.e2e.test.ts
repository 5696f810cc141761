import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { useDatabasesBefore } from "../test-utils/test-db.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// One source, two bridges with different filters: an event is listed under each bridge it went
// through, not only under the source's first bridge.
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;
let slug: string;
let paidBridge: string;
let bigBridge: string;

const destination = (name: string, filters: unknown[]) => ({
  name,
  type: "http",
  url: "http://127.0.0.1:9/",
  max_retries: 0,
  filters,
});

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  stranger = await signUp(server, { plan: "team" });
  const paid = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Paid",
    source: { name: "Shop", type: "webhook" },
    destinations: [destination("Billing", [{ "body.type": "paid" }])],
  });
  paidBridge = paid.body.data.id;
  const sourceId = paid.body.data.source_id;
  const big = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Big orders",
    source_id: sourceId,
    destinations: [destination("Sales", [{ "body.amount": { $gte: 100 } }])],
  });
  expect(big.status).toBe(201);
  bigBridge = big.body.data.id;
  slug = (await callAs(server, owner, "GET", `/api/v1/sources/${sourceId}`)).body.data.slug;
});
afterAll(() => server.stop());

async function ingest(body: unknown): Promise<string> {
  const response = await fetch(`${server.url}/in/${slug}`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { event_id: string }).event_id;
}

const event = async (id: string) =>
  (await callAs(server, owner, "GET", `/api/v1/events/${id}`)).body.data;
const listed = async (query: string, as: TestAccount = owner) => {
  const answer = await callAs(server, as, "GET", `/api/v1/events?page_size=100&${query}`);
  expect(answer.status).toBe(200);
  return (answer.body.data as { id: string }[]).map((e) => e.id).sort();
};
const setStatus = (bridgeId: string, status: string) =>
  callAs(server, owner, "PATCH", `/api/v1/bridges/${bridgeId}`, { status });

describe("events of a source with two bridges", () => {
  const ids = { paid: "", big: "", both: "", none: "" };

  test("each event names every bridge it went through", async () => {
    ids.paid = await ingest({ type: "paid", amount: 5 });
    ids.big = await ingest({ type: "refund", amount: 500 });
    ids.both = await ingest({ type: "paid", amount: 900 });
    ids.none = await ingest({ type: "refund", amount: 1 });
    // Matched events go on to be delivered (their status moves on); the bridges stay.
    const seen = async (id: string) => {
      const e = await event(id);
      return { status: e.status, bridge_id: e.bridge_id, bridge_ids: e.bridge_ids };
    };
    expect(await seen(ids.paid)).toMatchObject({ bridge_id: paidBridge, bridge_ids: [paidBridge] });
    expect(await seen(ids.big)).toMatchObject({ bridge_id: bigBridge, bridge_ids: [bigBridge] });
    expect((await seen(ids.both)).bridge_ids).toEqual([paidBridge, bigBridge]);
    // Nothing matched: the event is listed under the active bridges that filtered it.
    expect(await seen(ids.none)).toEqual({
      status: "filtered",
      bridge_id: paidBridge,
      bridge_ids: [paidBridge, bigBridge],
    });
  });

  test("?bridge_id= lists exactly the events of that bridge, whichever bridge came first", async () => {
    expect(await listed(`bridge_id=${paidBridge}`)).toEqual([ids.paid, ids.both, ids.none].sort());
    expect(await listed(`bridge_id=${bigBridge}`)).toEqual([ids.big, ids.both, ids.none].sort());
    expect(await listed(`bridge_id=${bigBridge}&status=filtered`)).toEqual([ids.none]);
    const page = await callAs(server, owner, "GET", `/api/v1/events?bridge_id=${bigBridge}`);
    expect(page.body.total).toBe(3);
    expect(page.body.data.map((e: { bridge_ids: string[] }) => e.bridge_ids.length)).toEqual([
      2, 2, 1,
    ]);
    expect(await listed(`bridge_id=${bigBridge}`, stranger)).toEqual([]);
  });

  test("a paused event is listed under its paused bridges; a retry re-routes it", async () => {
    await setStatus(paidBridge, "paused");
    await setStatus(bigBridge, "paused");
    const id = await ingest({ type: "paid", amount: 1 });
    await setStatus(paidBridge, "active");
    await setStatus(bigBridge, "active");
    expect((await event(id)).bridge_ids).toEqual([paidBridge, bigBridge]);
    const retried = await callAs(server, owner, "POST", `/api/v1/events/${id}/retry`);
    expect(retried.body.data).toMatchObject({
      requeued: 1,
      bridge_id: paidBridge,
      bridge_ids: [paidBridge],
    });
    expect(await listed(`bridge_id=${bigBridge}`)).not.toContain(id);
    expect(await listed(`bridge_id=${paidBridge}`)).toContain(id);
  });

  test("deleting a bridge takes it out of its events", async () => {
    const deleted = await callAs(server, owner, "DELETE", `/api/v1/bridges/${bigBridge}`);
    expect(deleted.status).toBe(204);
    expect((await event(ids.both)).bridge_ids).toEqual([paidBridge]);
    expect(await listed(`bridge_id=${bigBridge}`)).toEqual([]);
  });
});

describe("the event_bridges migration", () => {
  const databaseBefore = useDatabasesBefore("0012_event_bridges");

  test("relates every earlier event to the one bridge it named, if that bridge still exists", () => {
    const db = databaseBefore();
    const stamp = "2026-01-01T00:00:00.000Z";
    for (const sql of [
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ('o', 'o', 'team', ?1, ?1)",
      `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
         VALUES ('s', 'o', 's', 'webhook', 's', ?1, ?1)`,
      `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
         VALUES ('b', 'o', 's', 'b', 'active', ?1, ?1)`,
    ])
      db.sqlite.run(sql, [stamp]);
    const insertEvent = db.sqlite.prepare(
      `INSERT INTO events (id, organization_id, source_id, bridge_id, method, path, query_string,
         headers, raw_headers, body, status, created_at)
       VALUES (?, 'o', 's', ?, 'POST', '', '', '{}', '[]', x'', 'filtered', ?)`,
    );
    insertEvent.run("e1", "b", stamp);
    insertEvent.run("e2", "gone", stamp);
    insertEvent.run("e3", null, stamp);
    runMigrations(db.sqlite, MIGRATIONS);
    expect(db.sqlite.query("SELECT event_id, bridge_id FROM event_bridges").all()).toEqual([
      { event_id: "e1", bridge_id: "b" },
    ]);
  });
});
