import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import {
  type CreatedEndpoint,
  callAs,
  captureAt,
  createDebugEndpoint,
} from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { forwardsOf as listForwards, triesOf as pollTries } from "../test-utils/forwards.ts";
import { freePort } from "../test-utils/free-port.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const clock = createFakeClock();
const scheduler = createManualScheduler();
let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;

beforeAll(async () => {
  server = await startTestServer({
    clock,
    scheduler,
    config: { forward_timeout_ms: 500, retry_base_ms: 10_000 },
  });
  owner = await signUp(server, { plan: "enterprise" });
  sink = startHttpSink();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const forwardsOf = (endpoint: CreatedEndpoint, requestId: string) =>
  listForwards(server, owner, endpoint, requestId);
const triesOf = (endpoint: CreatedEndpoint, requestId: string, count: number) =>
  pollTries(server, owner, endpoint, requestId, count);

/** The sink request whose body is `marker`, once it arrived. */
const arrival = (marker: string) =>
  pollUntil(() => sink.requests.find((r) => new TextDecoder().decode(r.body) === marker), {
    what: `sink request ${marker}`,
  });

/** Sends raw HTTP/1.1 bytes, so headers a fetch client would not send reach the capture URL. */
function rawRequest(lines: string[], body: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.write(`${lines.join("\r\n")}\r\nContent-Length: ${body.byteLength}\r\n\r\n`);
    // No half-close: "Connection: close" makes the server end the exchange after answering.
    socket.write(body);
  });
}

describe("forward on capture (decisions.md §6)", () => {
  test("byte-exact body, sub-path and query appended, hop-by-hop headers and Host dropped", async () => {
    sink.answer(() => ({ status: 202, headers: { "x-down": "yes" }, body: "accepted" }));
    const endpoint = await createDebugEndpoint(server, owner, {
      forward_url: `${sink.url}/in?k=v`,
    });
    const body = new Uint8Array(256).map((_, i) => i);
    const answer = await rawRequest(
      [
        `PUT /w/${endpoint.slug}/a/b?x=1 HTTP/1.1`,
        "Host: weir.example",
        "Connection: close, X-Private",
        "X-Private: per-hop",
        "Keep-Alive: timeout=5",
        "Proxy-Authorization: Basic c2VjcmV0",
        "X-Signature: sig-1",
        "Content-Type: application/octet-stream",
      ],
      body,
    );
    expect(answer).toStartWith("HTTP/1.1 200");
    const got = await pollUntil(() => sink.requests.find((r) => r.path === "/in/a/b"), {
      what: "the forward",
    });
    expect([got.method, got.query]).toEqual(["PUT", "k=v&x=1"]);
    expect(got.body).toEqual(body);
    expect(got.headers.get("x-signature")).toBe("sig-1");
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("x-weir-forwarded")).toBe("1");
    expect(got.headers.get("content-length")).toBe("256");
    expect(got.headers.get("host")).toBe(new URL(sink.url).host);
    for (const dropped of ["x-private", "keep-alive", "proxy-authorization"]) {
      expect(got.headers.get(dropped)).toBeNull();
    }
    const list = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}/requests`);
    const [tried] = await triesOf(endpoint, list.body.data[0].id, 1);
    expect(tried).toEqual({
      id: expect.any(String),
      request_id: list.body.data[0].id,
      url: `${sink.url}/in/a/b?k=v&x=1`,
      method: "PUT",
      status_code: 202,
      response_headers: expect.objectContaining({ "x-down": "yes" }),
      response_body: "accepted",
      latency_ms: expect.any(Number),
      error: null,
      attempt: 1,
      created_at: expect.any(String),
    });
  });

  test("the capture is answered before the destination answers", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowSink = startHttpSinkHolding(held);
    const endpoint = await createDebugEndpoint(server, owner, {
      forward_url: `${slowSink.url}/slow`,
    });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    await pollUntil(() => slowSink.received > 0, { what: "the forward to arrive" });
    expect(await forwardsOf(endpoint, requestId)).toEqual([]);
    release();
    const [tried] = await triesOf(endpoint, requestId, 1);
    expect(tried.status_code).toBe(200);
    slowSink.stop();
  });

  test("a request carrying x-weir-forwarded is never forwarded (loop guard)", async () => {
    sink.answer(() => ({ status: 200, body: "ok" }));
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/loop` });
    const guarded = await captureAt(server, `/debug/${endpoint.slug}`, {
      method: "POST",
      headers: { "x-weir-forwarded": "1" },
      body: "guarded-marker",
    });
    await captureAt(server, `/debug/${endpoint.slug}`, { method: "POST", body: "control-marker" });
    await arrival("control-marker");
    expect(sink.requests.some((r) => new TextDecoder().decode(r.body) === "guarded-marker")).toBe(
      false,
    );
    expect(await forwardsOf(endpoint, guarded)).toEqual([]);
  });

  test("GET is forwarded without a body; no forward_url means no forward", async () => {
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/get` });
    const quiet = await createDebugEndpoint(server, owner, {});
    const quietId = await captureAt(server, `/debug/${quiet.slug}`, { method: "GET" });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}?only=query`, {
      method: "GET",
    });
    const got = await pollUntil(() => sink.requests.find((r) => r.path === "/get"));
    expect([got.method, got.query, got.body.byteLength]).toEqual(["GET", "only=query", 0]);
    expect((await triesOf(endpoint, requestId, 1))[0].status_code).toBe(200);
    expect(await forwardsOf(quiet, quietId)).toEqual([]);
  });

  test("only the first 64 KiB of the destination's answer is kept", async () => {
    sink.answer(() => ({ status: 200, body: "z".repeat(100 * 1024) }));
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/big` });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    const [tried] = await triesOf(endpoint, requestId, 1);
    expect(tried.response_body).toBe("z".repeat(65_536));
  });
});

describe("failures and retries", () => {
  test("a destination that is down: the error is recorded, then retried with backoff (10 s, 20 s ±20 %)", async () => {
    const endpoint = await createDebugEndpoint(server, owner, {
      forward_url: `http://127.0.0.1:${freePort()}/down`,
    });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    const [first] = await triesOf(endpoint, requestId, 1);
    expect(first).toMatchObject({ status_code: null, response_body: null, attempt: 1 });
    expect(first.error).toStartWith("connection_refused: ");
    expect(first.error).toContain("ECONNREFUSED");
    const logged = await pollUntil(() =>
      server.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find(
          (l) => l.msg === "forward attempt failed" && l.destination === `forward:${endpoint.id}`,
        ),
    );
    expect(logged).toMatchObject({ level: "warn", error_code: "connection_refused", attempt: 1 });
    clock.advance(7_999); // the earliest retry is 10 s − 20 %
    await scheduler.run("delivery.poll");
    await captureControl();
    expect(await forwardsOf(endpoint, requestId)).toHaveLength(1);
    clock.advance(4_001);
    await scheduler.run("delivery.poll");
    await triesOf(endpoint, requestId, 2);
    clock.advance(24_000);
    await scheduler.run("delivery.poll");
    const tries = await triesOf(endpoint, requestId, 3);
    expect(tries.map((t: { attempt: number }) => t.attempt)).toEqual([1, 2, 3]);
    clock.advance(3_600_000);
    await scheduler.run("delivery.poll");
    await captureControl();
    expect(await forwardsOf(endpoint, requestId)).toHaveLength(3);
  });

  test("5xx is retried until the destination accepts; 4xx is not retried", async () => {
    let calls = 0;
    sink.answer((request) => {
      if (request.path === "/flaky") return { status: ++calls === 1 ? 503 : 200, body: "x" };
      return { status: 404, body: "no" };
    });
    const flaky = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/flaky` });
    const missing = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/404` });
    const flakyId = await captureAt(server, `/debug/${flaky.slug}`);
    const missingId = await captureAt(server, `/debug/${missing.slug}`);
    await triesOf(flaky, flakyId, 1);
    await triesOf(missing, missingId, 1);
    clock.advance(12_000);
    await scheduler.run("delivery.poll");
    const tries = await triesOf(flaky, flakyId, 2);
    expect(tries.map((t: { status_code: number | null }) => t.status_code)).toEqual([503, 200]);
    clock.advance(60_000);
    await scheduler.run("delivery.poll");
    await captureControl();
    expect(await forwardsOf(flaky, flakyId)).toHaveLength(2);
    expect(await forwardsOf(missing, missingId)).toHaveLength(1);
  });

  test("removing the forward_url stops the retries still pending", async () => {
    const endpoint = await createDebugEndpoint(server, owner, {
      forward_url: `http://127.0.0.1:${freePort()}/down`,
    });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    await triesOf(endpoint, requestId, 1);
    await callAs(server, owner, "PATCH", `/api/v1/debug-endpoints/${endpoint.id}`, {
      debug_endpoint: { forward_url: null },
    });
    clock.advance(12_000);
    await scheduler.run("delivery.poll");
    await captureControl();
    expect(await forwardsOf(endpoint, requestId)).toHaveLength(1);
  });

  test("a slow destination is a timeout (forward_timeout_ms)", async () => {
    sink.answer(() => ({ status: 200, body: "slow", delayMs: 2_000 }));
    const endpoint = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/t` });
    const requestId = await captureAt(server, `/debug/${endpoint.slug}`);
    const [tried] = await triesOf(endpoint, requestId, 1);
    expect([tried.status_code, tried.error]).toEqual([null, "timeout: no answer within 500 ms"]);
  });
});

/**
 * A forward through a fresh endpoint to the sink, awaited: tries started before it have had their
 * turn, so "no further try" can be asserted without sleeping.
 */
async function captureControl(): Promise<void> {
  sink.answer(() => ({ status: 200, body: "ok" }));
  const control = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/control` });
  const marker = `control-${control.id}`;
  await captureAt(server, `/debug/${control.slug}`, { method: "POST", body: marker });
  await arrival(marker);
}

/** A sink that holds every answer until `held` resolves. */
function startHttpSinkHolding(held: Promise<void>) {
  let received = 0;
  const holding = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      received += 1;
      await held;
      return new Response("held");
    },
  });
  return {
    url: `http://127.0.0.1:${holding.port}`,
    get received() {
      return received;
    },
    stop: () => holding.stop(true),
  };
}
