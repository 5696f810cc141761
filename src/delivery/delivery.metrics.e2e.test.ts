import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { captureAt, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { freePort } from "../test-utils/free-port.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { testStore } from "../test-utils/test-store.ts";

let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;

beforeAll(async () => {
  // Retries far away: the failed forward stays queued while the figures are read.
  server = await startTestServer({ config: { retry_base_ms: 3_600_000 } });
  owner = await signUp(server, { plan: "enterprise" });
  sink = startHttpSink();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const metrics = async () => (await server.request("/metrics")).text();
const value = (text: string, series: string) =>
  Number(
    text
      .split("\n")
      .find((line) => line.startsWith(`${series} `))
      ?.split(" ")[1],
  );

test("/metrics shows the outbox: queue depth, due now, attempts by outcome, breakers by state", async () => {
  const ok = await createDebugEndpoint(server, owner, { forward_url: `${sink.url}/ok` });
  const down = await createDebugEndpoint(server, owner, {
    forward_url: `http://127.0.0.1:${freePort()}/down`,
  });
  await captureAt(server, `/debug/${ok.slug}`);
  await captureAt(server, `/debug/${down.slug}`);
  const attempted = async () => {
    const body = await metrics();
    const success = 'weir_delivery_attempts_total{kind="forward",outcome="success"}';
    const failed = 'weir_delivery_attempts_total{kind="forward",outcome="network_error"}';
    return value(body, success) === 1 && value(body, failed) === 1 && body;
  };
  // On PostgreSQL other nodes move the queue too: its figures are read from the tables every 5 s.
  const text =
    testStore() === "postgres"
      ? await pollUntil(
          async () => {
            const body = await attempted();
            return body && value(body, "weir_delivery_queue_depth") === 1 && body;
          },
          { timeoutMs: 15_000, what: "the attempts and the queue's figures in /metrics" },
        )
      : await pollUntil(attempted, {
          what: "one successful and one failed forward attempt in /metrics",
        });
  expect(value(text, "weir_delivery_queue_depth")).toBe(1);
  expect(value(text, "weir_delivery_due")).toBe(0);
  expect(value(text, 'weir_delivery_breakers{state="closed"}')).toBe(2);
  expect(value(text, 'weir_delivery_breakers{state="open"}')).toBe(0);
});
