import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ScriptedServer, startScriptedServer } from "../../test-utils/scripted-server.ts";
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from "../../test-utils/tls-fixture.ts";
import { createOutboundPolicy } from "./outbound.policy.ts";
import { createOutboundSender } from "./outbound.sender.ts";

// https through Bun.connect's TLS: the certificate is verified, against the URL's host.
const open = createOutboundPolicy({ deny: [], allow: [] });
const OK = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecure";
const toLoopback = async () => [{ address: "127.0.0.1", family: 4 }];

let server: ScriptedServer;
beforeAll(() => {
  server = startScriptedServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT });
  server.script(() => ({ parts: [{ bytes: OK }] }));
});
afterAll(() => server.stop());

const trusting = () =>
  createOutboundSender({
    policy: open,
    timeoutMs: 2000,
    trustedCa: SELF_SIGNED_CERT,
    resolve: toLoopback,
  });

describe("https", () => {
  test("a certificate the sender does not trust is a tls_error, and nothing is sent", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 2000 });
    const before = server.requests.length;
    const result = await sender.send({
      url: `https://localhost:${server.port}/`,
      method: "POST",
      body: "secret",
    });
    expect(result.error).toMatchObject({ type: "network_error", code: "tls_error" });
    expect(result.error?.message).toContain("SELF_SIGNED");
    expect(server.requests.length).toBe(before);
  });

  test("with the test's CA trusted, the name and the address in the certificate are accepted", async () => {
    const sender = trusting();
    for (const host of ["localhost", "127.0.0.1"]) {
      const result = await sender.send({ url: `https://${host}:${server.port}/in`, method: "GET" });
      expect([result.status, new TextDecoder().decode(result.body)]).toEqual([200, "secure"]);
    }
    expect(server.requests.at(-1)?.headers[0]).toEqual(["Host", `127.0.0.1:${server.port}`]);
  });

  test("a name the certificate does not cover is refused, though it resolves to the same address", async () => {
    const result = await trusting().send({
      url: `https://other.example:${server.port}/`,
      method: "GET",
    });
    expect(result.error).toMatchObject({ type: "network_error", code: "tls_error" });
    expect(result.error?.message).toContain("ERR_TLS_CERT_ALTNAME_INVALID");
  });

  test("TLS connections are kept alive and reused", async () => {
    const sender = trusting();
    const before = server.opened;
    for (let i = 0; i < 5; i++) {
      const result = await sender.send({
        url: `https://localhost:${server.port}/k`,
        method: "POST",
        body: "x",
      });
      expect(result.status).toBe(200);
    }
    expect(server.opened - before).toBe(1);
  });

  test("a real Bun.serve over TLS answers, chunked and all", async () => {
    const serve = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT },
      fetch: async (request) =>
        new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode(`${request.method} `));
              controller.enqueue(new TextEncoder().encode(await request.text()));
              controller.close();
            },
          }),
        ),
    });
    try {
      const result = await trusting().send({
        url: `https://localhost:${serve.port}/`,
        method: "PUT",
        body: "payload",
      });
      expect([result.status, new TextDecoder().decode(result.body)]).toEqual([200, "PUT payload"]);
    } finally {
      await serve.stop(true);
    }
  });
});
