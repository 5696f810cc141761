import { afterAll, beforeAll, expect, test } from "bun:test";
import { createIds } from "../shared/ids.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { runSqlNow } from "../test-utils/sql-now.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

/** Runs once, at the next id minted: an ingest mints its event's id after reading its plan. */
let atNextId: (() => void) | null = null;
const ids = createIds();

let server: TestServer;
let victim: TestAccount;
let tenant: TestAccount;

beforeAll(async () => {
  server = await startTestServer({
    ids: {
      ...ids,
      uuid() {
        const hook = atNextId;
        atNextId = null;
        hook?.();
        return ids.uuid();
      },
    },
  });
  victim = await signUp(server, { plan: "team" });
  tenant = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

async function bridgeOf(account: TestAccount, name: string) {
  const bridge = await callAs(server, account, "POST", "/api/v1/bridges", {
    name,
    source: { name: `${name} source`, type: "webhook" },
    // Never matched: no delivery, so the only ids minted below are the events' own.
    destinations: [
      {
        name: "Sink",
        type: "http",
        url: "http://127.0.0.1:9/",
        filters: [{ "body.never": { $exist: true } }],
      },
    ],
  });
  expect(bridge.status).toBe(201);
  const sourceId = bridge.body.data.source_id as string;
  const source = await callAs(server, account, "GET", `/api/v1/sources/${sourceId}`);
  return {
    bridgeId: bridge.body.data.id as string,
    sourceId,
    slug: source.body.data.slug as string,
  };
}

const post = async (path: string) => {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body: '{"n":1}' });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

test("an ingest whose bridge is deleted after its plan was read fails neither itself nor its batch", async () => {
  const stale = await bridgeOf(tenant, "Stale");
  const busy = await bridgeOf(victim, "Busy");
  // Both plans are read and cached now; the deletion below happens behind the stale one's back.
  expect((await post(`/in/${stale.slug}`)).status).toBe(200);
  expect((await post(`/in/${busy.slug}`)).status).toBe(200);
  atNextId = () => runSqlNow(server, "DELETE FROM bridges WHERE id = $1", [stale.bridgeId]);
  const answers = await Promise.all([
    post(`/in/${stale.slug}`),
    ...Array.from({ length: 60 }, () => post(`/in/${busy.slug}`)),
  ]);
  expect(atNextId).toBeNull();
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  const [staleAnswer] = answers;
  const event = await callAs(server, tenant, "GET", `/api/v1/events/${staleAnswer?.body.event_id}`);
  expect(event.status).toBe(200);
  expect([event.body.data.status, event.body.data.deliveries]).toEqual(["unrouted", []]);
});

test("an ingest whose source is deleted after its plan was read answers 404", async () => {
  const gone = await bridgeOf(tenant, "Gone");
  const busy = await bridgeOf(victim, "Busy too");
  expect((await post(`/api/v1/sources/${gone.sourceId}/ingest`)).status).toBe(200);
  atNextId = () => runSqlNow(server, "DELETE FROM sources WHERE id = $1", [gone.sourceId]);
  const [goneAnswer, ...others] = await Promise.all([
    post(`/api/v1/sources/${gone.sourceId}/ingest`),
    ...Array.from({ length: 20 }, () => post(`/in/${busy.slug}`)),
  ]);
  expect([goneAnswer?.status, goneAnswer?.body]).toEqual([404, { error: "not_found" }]);
  expect(others.map((a) => a.status)).toEqual(others.map(() => 200));
});
