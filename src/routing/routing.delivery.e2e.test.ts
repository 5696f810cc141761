import { afterAll, beforeAll, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
const sink = startHttpSink();

beforeAll(async () => {
  server = await startTestServer({ config: { retry_base_ms: 50, retry_cap_ms: 100 } });
  owner = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const eventOf = async (id: string) =>
  (await callAs(server, owner, "GET", `/api/v1/events/${id}`)).body.data;

test("ingest → the matching destination receives the body byte-exact, signed; the event ends delivered", async () => {
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Orders",
    source: { name: "Shop", type: "webhook" },
    destinations: [
      { name: "paid", url: `${sink.url}/paid`, filters: [{ "body.status": { $eq: "paid" } }] },
      { name: "refunds", url: `${sink.url}/refunds`, filters: [{ "body.status": "refunded" }] },
    ],
  });
  const [paid] = created.body.data.destinations;
  const source = await callAs(
    server,
    owner,
    "GET",
    `/api/v1/sources/${created.body.data.source_id}`,
  );
  const body = '{"status":"paid","amount":12.5}';
  const answer = await fetch(source.body.data.ingest_url, { method: "POST", body });
  const { event_id } = (await answer.json()) as { event_id: string };
  const received = await pollUntil(() => sink.requests.find((r) => r.path === "/paid"), {
    what: "the delivery at the sink",
  });
  expect(new TextDecoder().decode(received.body)).toBe(body);
  expect(sink.requests.some((r) => r.path === "/refunds")).toBe(false);
  const headers = Object.fromEntries(received.headers.entries());
  expect(new Webhook(paid.signing_secret).verify(body, headers)).toEqual(JSON.parse(body));
  const event = await pollUntil(
    async () => {
      const e = await eventOf(event_id);
      return e.status === "delivered" ? e : undefined;
    },
    { what: "the event delivered" },
  );
  expect(event.deliveries).toHaveLength(1);
  expect(event.deliveries[0]).toMatchObject({
    destination_id: paid.id,
    status: "delivered",
    attempts: 1,
    status_code: 200,
  });
});

test("a failing destination with max_retries 0 → event failed; retry re-queues it and it is delivered", async () => {
  let fail = true;
  sink.answer(() => (fail ? { status: 500, body: "no" } : { status: 200, body: "ok" }));
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Flaky",
    source: { name: "Flaky" },
    destinations: [{ name: "x", url: `${sink.url}/flaky`, max_retries: 0 }],
  });
  const source = await callAs(
    server,
    owner,
    "GET",
    `/api/v1/sources/${created.body.data.source_id}`,
  );
  const answer = await fetch(source.body.data.ingest_url, { method: "POST", body: "{}" });
  const { event_id } = (await answer.json()) as { event_id: string };
  const failed = await pollUntil(
    async () => {
      const e = await eventOf(event_id);
      return e.status === "failed" ? e : undefined;
    },
    { what: "the event failed" },
  );
  expect(failed.deliveries[0]).toMatchObject({
    status: "failed",
    status_code: 500,
    error_type: "http_error",
  });
  fail = false;
  const retried = await callAs(server, owner, "POST", `/api/v1/events/${event_id}/retry`);
  expect([retried.status, retried.body.data.requeued]).toEqual([200, 1]);
  await pollUntil(
    async () => ((await eventOf(event_id)).status === "delivered" ? true : undefined),
    { what: "the retried event delivered" },
  );
  sink.answer(() => ({ status: 200, body: "ok" }));
});
