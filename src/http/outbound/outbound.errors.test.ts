import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { freePort } from "../../test-utils/free-port.ts";
import { type RawSink, startRawSink } from "../../test-utils/raw-sink.ts";
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from "../../test-utils/tls-fixture.ts";
import { createOutboundPolicy } from "./outbound.policy.ts";
import { createOutboundSender } from "./outbound.sender.ts";

// The classification of real failures, end to end: real sockets on 127.0.0.1 and the real resolver.
const sender = createOutboundSender({
  policy: createOutboundPolicy({ deny: [], allow: [] }),
  timeoutMs: 300,
});
let sink: RawSink;
let tls: ReturnType<typeof Bun.serve>;
let plain: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  sink = await startRawSink();
  tls = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT },
    fetch: () => new Response("tls"),
  });
  plain = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("plain") });
});
afterAll(async () => {
  await sink.stop();
  await tls.stop(true);
  await plain.stop(true);
});

describe("real failures are classified (network_error codes of decisions.md §8)", () => {
  test("a closed port → connection_refused", async () => {
    const result = await sender.send({ url: `http://127.0.0.1:${freePort()}/`, method: "GET" });
    expect(result.error).toMatchObject({ type: "network_error", code: "connection_refused" });
    expect(result.error?.message).toContain("ECONNREFUSED");
  });

  test("a server that resets the connection → connection_reset", async () => {
    sink.behave(() => "reset");
    const result = await sender.send({ url: sink.url, method: "POST", body: "x" });
    expect(result.error).toMatchObject({ type: "network_error", code: "connection_reset" });
  });

  test("a server that closes without answering → connection_reset", async () => {
    sink.behave(() => "close");
    const result = await sender.send({ url: sink.url, method: "GET" });
    expect(result.error).toMatchObject({ type: "network_error", code: "connection_reset" });
  });

  test("a server that never answers → timeout", async () => {
    sink.behave(() => "silent");
    const result = await sender.send({ url: sink.url, method: "GET" });
    expect(result.error).toMatchObject({ type: "network_error", code: "timeout" });
  });

  test("an answer that is not HTTP → invalid_response", async () => {
    sink.behave(() => ({ answer: "SSH-2.0-OpenSSH_9.2\r\n\r\n" }));
    const result = await sender.send({ url: sink.url, method: "GET" });
    expect(result.error).toMatchObject({ type: "network_error", code: "invalid_response" });
  });

  test("an unresolvable name → dns_failure", async () => {
    const result = await sender.send({ url: "http://nothing.invalid/", method: "GET" });
    expect(result.error).toMatchObject({ type: "network_error", code: "dns_failure" });
  });

  test("a self-signed certificate → tls_error", async () => {
    const result = await sender.send({ url: `https://localhost:${tls.port}/`, method: "GET" });
    expect(result.error).toMatchObject({ type: "network_error", code: "tls_error" });
  });

  test("https to a server that does not speak TLS → tls_error", async () => {
    const result = await sender.send({ url: `https://127.0.0.1:${plain.port}/`, method: "GET" });
    expect(result.error).toMatchObject({ type: "network_error", code: "tls_error" });
  });

  test("an aborted send → aborted", async () => {
    sink.behave(() => "silent");
    const controller = new AbortController();
    const pending = sender.send({ url: sink.url, method: "GET", signal: controller.signal });
    controller.abort();
    expect((await pending).error).toMatchObject({ type: "network_error", code: "aborted" });
  });
});
