import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// The events list's latency column: a delivered event says when its last delivery succeeded.
let server: TestServer;
let owner: TestAccount;
const sink = startHttpSink();

beforeAll(async () => {
  // Retries wait a minute: an event whose delivery failed once stays pending through the test.
  server = await startTestServer({ config: { retry_base_ms: 60_000, retry_cap_ms: 60_000 } });
  owner = await signUp(server, { plan: "team" });
  sink.answer((r) => (r.path === "/down" ? { status: 500, body: "down" } : { status: 200 }));
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

async function sourceTo(path: string, maxRetries: number): Promise<string> {
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: `Bridge ${crypto.randomUUID()}`,
    source: { name: `Source ${crypto.randomUUID()}`, type: "webhook" },
    destinations: [{ name: "d", type: "http", url: `${sink.url}${path}`, max_retries: maxRetries }],
  });
  expect(created.status).toBe(201);
  return created.body.data.source_id;
}

async function ingest(sourceId: string): Promise<string> {
  const answer = await server.request(`/api/v1/sources/${sourceId}/ingest`, {
    method: "POST",
    body: "{}",
  });
  return ((await answer.json()) as { event_id: string }).event_id;
}

interface Listed {
  id: string;
  status: string;
  created_at: string;
  completed_at: string | null;
}
const listed = async (sourceId: string): Promise<Listed[]> =>
  (await callAs(server, owner, "GET", `/api/v1/events?source_id=${sourceId}`)).body.data;

test("a delivered event has completed_at, when its last delivery succeeded; a pending one has null", async () => {
  const up = await sourceTo("/up", 0);
  const down = await sourceTo("/down", 3);
  const delivered = await ingest(up);
  const pending = await ingest(down);
  const row = await pollUntil(
    async () => {
      const [first] = await listed(up);
      return first?.status === "delivered" && first;
    },
    { what: "the event delivered" },
  );
  expect(row.id).toBe(delivered);
  expect(row.completed_at).toBeString();
  expect(Date.parse(row.completed_at ?? "")).toBeGreaterThanOrEqual(Date.parse(row.created_at));
  const detail = await callAs(server, owner, "GET", `/api/v1/events/${delivered}`);
  expect(detail.body.data.completed_at).toBe(row.completed_at);

  await pollUntil(
    async () => {
      const answer = await callAs(server, owner, "GET", `/api/v1/events/${pending}`);
      return answer.body.data.deliveries[0]?.attempts === 1;
    },
    { what: "the first attempt failed" },
  );
  const [waiting] = await listed(down);
  expect([waiting?.status, waiting?.completed_at]).toEqual(["pending", null]);
});
