import { afterAll, beforeAll, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { createBridge } from "../test-utils/bridges.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { onPostgres } from "../test-utils/test-store.ts";

// What an http destination receives (decisions.md §15): the original request's headers, the
// transformation's changes, the destination's own headers, the signature; the sub-path and
// query after /in/{slug}; and the request actually sent, shown on the event.
let server: TestServer;
let owner: TestAccount;
const sink = startHttpSink();

beforeAll(async () => {
  server = await startTestServer({
    // The loop test's 508s open its destinations' breakers: what they hold goes out soon after.
    config: { retry_base_ms: 50, retry_cap_ms: 100, breaker_open_ms: 100 },
  });
  owner = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

async function bridgeTo(name: string, destination: Record<string, unknown>) {
  const { bridge, ingestUrl } = await createBridge(server, owner, {
    name,
    source: { name, type: "webhook" },
    destinations: [{ name: `${name} service`, ...destination }],
  });
  return { bridge, destination: bridge.destinations[0], ingestUrl };
}

const receivedAt = (path: string) =>
  pollUntil(() => sink.requests.find((r) => r.path === path), { what: `a delivery to ${path}` });

const deliveredEvent = (id: string) =>
  pollUntil(
    async () => {
      const event = (await callAs(server, owner, "GET", `/api/v1/events/${id}`)).body.data;
      return event.status === "delivered" ? event : undefined;
    },
    { what: "the event delivered" },
  );

test("a GitHub webhook reaches the service with its headers, sub-path and query; the destination's headers win", async () => {
  const { destination, ingestUrl } = await bridgeTo("GitHub", {
    url: `${sink.url}/github?team=platform`,
    headers: { "X-Hub-Signature-256": "replaced by the destination", "X-Service": "ci" },
  });
  expect(destination.path_forwarding).toBe(true);
  const body = '{"action":"opened"}';
  const answer = await fetch(`${ingestUrl}/pulls/opened?delivery=1`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-github-event": "pull_request",
      "x-hub-signature-256": "sha256=upstream",
      "webhook-signature": "v1,forged-upstream",
      "x-weir-forwarded": "1",
      "proxy-authorization": "Basic cHJveHk=",
    },
  });
  expect(answer.status).toBe(200);
  const received = await receivedAt("/github/pulls/opened");
  expect(received.query).toBe("team=platform&delivery=1");
  const headers = Object.fromEntries(received.headers.entries());
  expect(headers).toMatchObject({
    "content-type": "application/json",
    "x-github-event": "pull_request",
    "x-hub-signature-256": "replaced by the destination",
    "x-service": "ci",
  });
  // The sender's loop guard is not passed on as it came: Weir writes its own, one hop more.
  expect(headers["x-weir-forwarded"]).toBe("2");
  expect(headers["proxy-authorization"]).toBeUndefined();
  // The upstream signature header is not passed on beside Weir's own: one signature, Weir's.
  expect(new Webhook(destination.signing_secret).verify(body, headers)).toEqual(JSON.parse(body));
});

test("path_forwarding false keeps the URL as written; it is validated and read back everywhere", async () => {
  const { bridge, destination, ingestUrl } = await bridgeTo("Fixed", {
    url: `${sink.url}/fixed`,
    path_forwarding: false,
  });
  expect(destination.path_forwarding).toBe(false);
  await fetch(`${ingestUrl}/ignored/sub/path?q=1`, { method: "POST", body: "{}" });
  const received = await receivedAt("/fixed");
  expect(received.query).toBe("");

  const base = `/api/v1/bridges/${bridge.id}`;
  const reads = [
    (await callAs(server, owner, "GET", base)).body.data.destinations[0],
    (await callAs(server, owner, "GET", "/api/v1/bridges")).body.data.find(
      (b: { id: string }) => b.id === bridge.id,
    ).destinations[0],
    (await callAs(server, owner, "GET", `${base}/destinations/${destination.id}`)).body.data,
  ];
  for (const read of reads) expect(read.path_forwarding).toBe(false);
  const patched = await callAs(server, owner, "PATCH", `${base}/destinations/${destination.id}`, {
    path_forwarding: true,
  });
  expect([patched.status, patched.body.data.path_forwarding]).toEqual([200, true]);
  const refused = await callAs(server, owner, "PATCH", `${base}/destinations/${destination.id}`, {
    path_forwarding: "no",
  });
  expect([refused.status, Object.keys(refused.body.errors)]).toEqual([422, ["path_forwarding"]]);
  const badCreate = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Bad",
    source: { name: "Bad" },
    destinations: [{ name: "x", url: `${sink.url}/x`, path_forwarding: 1 }],
  });
  expect(badCreate.status).toBe(422);
  expect(Object.keys(badCreate.body.errors)).toEqual(["destinations[0].path_forwarding"]);
  const chat = await callAs(server, owner, "POST", `${base}/destinations`, {
    name: "chat",
    type: "slack",
    webhook_url: `${sink.url}/slack`,
  });
  expect([chat.status, chat.body.data.path_forwarding]).toEqual([201, null]);
});

test("the docs' stripe-reduced transformation: its authorization header arrives; the event shows what was sent, secrets concealed", async () => {
  const token = "sk_billing_0123456789";
  await callAs(server, owner, "POST", "/api/v1/secrets", { name: "BILLING_TOKEN", value: token });
  await callAs(server, owner, "POST", "/api/v1/secrets", {
    name: "BILLING_KEY",
    value: "key-4242",
  });
  const transformation = await callAs(server, owner, "POST", "/api/v1/transformations", {
    name: "stripe-reduced",
    code: `addHandler("transform", (request, context) => {
      const event = request.body;
      const object = event.data.object;
      request.headers["authorization"] = \`Bearer \${context.env.BILLING_TOKEN}\`;
      delete request.headers["stripe-signature"];
      request.body = { id: event.id, type: event.type, amount: object.amount / 100 };
      return request;
    });`,
  });
  expect(transformation.status).toBe(201);
  const { ingestUrl } = await bridgeTo("Stripe", {
    url: `${sink.url}/billing`,
    headers: { "x-billing-key": "{{BILLING_KEY}}" },
    transformation_id: transformation.body.data.id,
  });
  const answer = await fetch(ingestUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=abc" },
    body: JSON.stringify({
      id: "evt_1",
      type: "charge.succeeded",
      data: { object: { amount: 1250 } },
    }),
  });
  const { event_id } = (await answer.json()) as { event_id: string };
  const received = await receivedAt("/billing");
  expect(received.headers.get("authorization")).toBe(`Bearer ${token}`);
  expect(received.headers.get("x-billing-key")).toBe("key-4242");
  expect(received.headers.get("stripe-signature")).toBeNull();

  const event = await deliveredEvent(event_id);
  const sent = event.deliveries[0].sent;
  expect(sent).toMatchObject({
    method: "POST",
    url: `${sink.url}/billing`,
    body: JSON.stringify({ id: "evt_1", type: "charge.succeeded", amount: 12.5 }),
    body_encoding: "utf8",
    body_truncated: false,
  });
  expect(sent.headers).toMatchObject({
    authorization: "Bearer {{BILLING_TOKEN}}",
    "x-billing-key": "{{BILLING_KEY}}",
    "content-type": "application/json",
  });
  expect(sent.headers["webhook-signature"]).toStartWith("v1,");
  expect(sent.headers["stripe-signature"]).toBeUndefined();
  expect(JSON.stringify(event)).not.toContain(token);
});

test("a large body is shown cut at 64 KiB with its size", async () => {
  const { ingestUrl } = await bridgeTo("Bulk", { url: `${sink.url}/bulk` });
  const body = JSON.stringify({ rows: "x".repeat(100_000) });
  const answer = await fetch(ingestUrl, { method: "POST", body });
  const { event_id } = (await answer.json()) as { event_id: string };
  const event = await deliveredEvent(event_id);
  const sent = event.deliveries[0].sent;
  expect([sent.body.length, sent.body_truncated, sent.body_size]).toEqual([
    65_536,
    true,
    body.length,
  ]);
});

test("a destination pointing back at its own source stops after five hops, answered 508 loop_detected", async () => {
  const source = await callAs(server, owner, "POST", "/api/v1/sources", {
    name: "Echo chamber",
    type: "webhook",
  });
  const ingestUrl = source.body.data.ingest_url as string;
  // Two destinations back into the source: without a hop limit every event makes two more, forever.
  const created = await callAs(server, owner, "POST", "/api/v1/bridges", {
    name: "Echo chamber",
    source_id: source.body.data.id,
    destinations: ["a", "b"].map((name) => ({ name, url: ingestUrl, max_retries: 0 })),
  });
  expect(created.status).toBe(201);
  await fetch(ingestUrl, { method: "POST", body: "{}" });

  const count = async (status?: string) =>
    (
      await callAs(
        server,
        owner,
        "GET",
        `/api/v1/events?page_size=1&source_id=${source.body.data.id}${status ? `&status=${status}` : ""}`,
      )
    ).body.total as number;
  // 1 + 2 + 4 + 8 + 16 events; the 16 of the fifth hop are refused where they would land.
  // Five 508s in a row open a destination's breaker, which holds the rest of the hop for a
  // probe at a time; on PostgreSQL each held delivery waits for the outbox's next poll.
  await pollUntil(async () => ((await count("failed")) >= 16 ? true : undefined), {
    what: "the fifth hop refused",
    timeoutMs: onPostgres ? 15_000 : 5_000,
  });
  expect(await count()).toBe(31);
  const failed = await callAs(
    server,
    owner,
    "GET",
    `/api/v1/events?page_size=1&status=failed&source_id=${source.body.data.id}`,
  );
  const event = await callAs(server, owner, "GET", `/api/v1/events/${failed.body.data[0].id}`);
  const attempts: { status_code: number | null; error_code: string | null }[] =
    event.body.data.deliveries;
  // Each try that went out was refused; any other was held by an open breaker.
  expect(attempts.find((a) => a.status_code !== null)).toMatchObject({
    status_code: 508,
    response_body: '{"error":"loop_detected"}',
  });
  for (const attempt of attempts) {
    if (attempt.status_code !== 508) expect(attempt.error_code).toBe("circuit_open");
  }
  expect(event.body.data.request.headers["x-weir-forwarded"]).toBe("4");
}, 20_000);
