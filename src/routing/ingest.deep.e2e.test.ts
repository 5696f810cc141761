import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server);
});
afterAll(() => server.stop());

const deepArray = "[".repeat(200_000) + "]".repeat(200_000);
/** Under max_body_bytes (1 MiB) too. */
const deepObject = `${'{"a":'.repeat(150_000)}1${"}".repeat(150_000)}`;

async function sourceWith(deduplication: unknown, filters: unknown[]) {
  const bridge = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: `Deep ${Math.random()}`,
    source: { name: `Deep ${Math.random()}`, type: "webhook", deduplication_config: deduplication },
    destinations: [{ name: "D", type: "http", url: "http://127.0.0.1:9/", filters }],
  });
  expect(bridge.status).toBe(201);
  return bridge.body.data.source_id as string;
}

const ingest = async (sourceId: string, body: string) => {
  const response = await fetch(`${server.url}/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

test("a body nested deeper than the limit is opaque text to dedup keys: accepted, then a duplicate", async () => {
  const sourceId = await sourceWith({ exclude_fields: ["body.id"] }, []);
  for (const body of [deepArray, deepObject]) {
    const first = await ingest(sourceId, body);
    expect([first.status, first.body.message]).toEqual([200, "accepted"]);
    const again = await ingest(sourceId, body);
    expect([again.status, again.body.message]).toEqual([200, "duplicate"]);
  }
});

test("filters over a too-deep body find no field: the event is filtered, never a 5xx", async () => {
  const sourceId = await sourceWith(undefined, [{ "body.a": { $exist: true } }]);
  const answer = await ingest(sourceId, deepObject);
  expect(answer.status).toBe(200);
  const event = await callAs(server, owner, "GET", `/api/v1/events/${answer.body.event_id}`);
  expect(event.body.data.status).toBe("filtered");
});
