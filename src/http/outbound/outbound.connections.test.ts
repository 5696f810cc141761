import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { pollUntil } from "../../test-utils/poll.ts";
import { type ScriptedServer, startScriptedServer } from "../../test-utils/scripted-server.ts";
import { createOutboundPolicy } from "./outbound.policy.ts";
import { createOutboundSender, type Resolve } from "./outbound.sender.ts";

// Real sockets on 127.0.0.1: a scripted raw server that counts connections, and Bun.serve.
const open = createOutboundPolicy({ deny: [], allow: [] });
const sender = createOutboundSender({ policy: open, timeoutMs: 2000 });
const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
const text = (body: Uint8Array) => new TextDecoder().decode(body);

let server: ScriptedServer;
beforeAll(() => {
  server = startScriptedServer();
});
afterAll(() => server.stop());

/** A fresh sender per test where the pool's state matters. */
const freshSender = (pool?: { perOrigin?: number; total?: number; idleMs?: number }) =>
  createOutboundSender({ policy: open, timeoutMs: 2000, pool });

describe("keep-alive: one connection carries many requests", () => {
  test("sequential sends to one origin reuse the connection", async () => {
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const client = freshSender();
    const before = server.opened;
    for (let i = 0; i < 5; i++) {
      const result = await client.send({ url: `${server.url}/n${i}`, method: "POST", body: "x" });
      expect([result.status, text(result.body)]).toEqual([200, "ok"]);
    }
    expect(server.opened - before).toBe(1);
    expect(server.requests.slice(-5).map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
  });

  test("another host name on the same port is another origin, another connection", async () => {
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const client = freshSender();
    const before = server.opened;
    await client.send({ url: server.url, method: "GET" });
    await client.send({ url: `http://localhost:${server.port}/`, method: "GET" });
    await client.send({ url: server.url, method: "GET" });
    expect(server.opened - before).toBe(2);
    expect(server.requests.at(-2)?.headers[0]).toEqual(["Host", `localhost:${server.port}`]);
  });

  test("an answer with Connection: close, or read to the close, leaves no connection behind", async () => {
    const client = freshSender();
    const before = server.opened;
    server.script(() => ({
      parts: [{ bytes: "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok" }],
      after: "close",
    }));
    expect((await client.send({ url: server.url, method: "GET" })).status).toBe(200);
    server.script(() => ({
      parts: [{ bytes: "HTTP/1.1 200 OK\r\n\r\nto the end" }],
      after: "close",
    }));
    const delimited = await client.send({ url: server.url, method: "GET" });
    expect([delimited.status, text(delimited.body), delimited.bodyTruncated]).toEqual([
      200,
      "to the end",
      false,
    ]);
    server.script(() => ({ parts: [{ bytes: OK }] }));
    expect((await client.send({ url: server.url, method: "GET" })).status).toBe(200);
    expect(server.opened - before).toBe(3);
  });

  test("idle connections are closed after the idle timeout", async () => {
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const client = freshSender({ idleMs: 100 });
    const before = server.opened;
    await client.send({ url: server.url, method: "GET" });
    const first = server.requests.at(-1)?.connection ?? 0;
    expect(server.isOpen(first)).toBe(true);
    await pollUntil(() => !server.isOpen(first), {
      timeoutMs: 3000,
      what: "the idle socket closed",
    });
    await client.send({ url: server.url, method: "GET" });
    expect(server.opened - before).toBe(2);
  });

  test("a server's Keep-Alive timeout shortens the idle time, a second before it", async () => {
    const client = freshSender();
    const before = server.opened;
    server.script(() => ({
      parts: [{ bytes: "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 2\r\n\r\nok" }],
    }));
    await client.send({ url: server.url, method: "GET" });
    const first = server.requests.at(-1)?.connection ?? 0;
    // One second, less the margin: not kept at all, closed at once by the sender.
    await pollUntil(() => !server.isOpen(first), { timeoutMs: 500, what: "the socket closed" });
    server.script(() => ({
      parts: [
        { bytes: "HTTP/1.1 200 OK\r\nKeep-Alive: timeout=30\r\nContent-Length: 2\r\n\r\nok" },
      ],
    }));
    await client.send({ url: server.url, method: "GET" });
    await client.send({ url: server.url, method: "GET" });
    expect(server.opened - before).toBe(2);
  });

  test("idle connections are bounded per origin", async () => {
    server.script(() => ({ parts: [{ bytes: OK, delayMs: 30 }] }));
    const client = freshSender({ perOrigin: 2 });
    const before = server.opened;
    const sends = Array.from({ length: 5 }, () => client.send({ url: server.url, method: "GET" }));
    expect((await Promise.all(sends)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(server.opened - before).toBe(5);
    const ids = [1, 2, 3, 4, 5].map((n) => before + n);
    const stillOpen = () => ids.filter((id) => server.isOpen(id)).length;
    await pollUntil(() => stillOpen() === 2, { timeoutMs: 3000, what: "2 idle sockets kept" });
  });

  test("a connection the server closed while idle is not used again", async () => {
    server.script(() => ({ parts: [{ bytes: OK }], after: "close" }));
    const client = freshSender();
    const before = server.opened;
    await client.send({ url: server.url, method: "GET" });
    const first = server.requests.at(-1)?.connection ?? 0;
    await pollUntil(() => !server.isOpen(first), { timeoutMs: 3000, what: "the server's close" });
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const again = await client.send({ url: server.url, method: "POST", body: "once" });
    expect(again.status).toBe(200);
    expect(server.opened - before).toBe(2);
  });
});

describe("a pooled connection the server closes as the request arrives (stale keep-alive)", () => {
  for (const ending of ["close", "reset"] as const) {
    test(`${ending} before any answer byte: the POST is sent once more on a fresh connection`, async () => {
      const client = freshSender();
      server.script(() => ({ parts: [{ bytes: OK }] }));
      await client.send({ url: server.url, method: "POST", body: "first" });
      const before = server.requests.length;
      // The pooled connection's next request meets a server closing it; a fresh one is answered.
      server.script((request) => (request.index > 0 ? ending : { parts: [{ bytes: OK }] }));
      const result = await client.send({ url: server.url, method: "POST", body: "webhook" });
      expect([result.status, result.error]).toEqual([200, null]);
      const sent = server.requests.slice(before);
      expect(sent.map((r) => [r.index, text(r.body)])).toEqual([
        [1, "webhook"],
        [0, "webhook"],
      ]);
    });
  }

  test("a pooled connection cut by the deadline is not followed by a fresh one", async () => {
    const client = freshSender();
    server.script(() => ({ parts: [{ bytes: OK }] }));
    await client.send({ url: server.url, method: "GET" });
    const before = server.opened;
    server.script(() => "silent");
    const result = await client.send({
      url: server.url,
      method: "POST",
      body: "x",
      timeoutMs: 150,
    });
    expect(result.error).toMatchObject({ code: "timeout" });
    server.script(() => ({ parts: [{ bytes: OK }] }));
    expect((await client.send({ url: server.url, method: "GET" })).status).toBe(200);
    // Only the last send opened a connection: none was opened for the send the deadline ended.
    expect(server.opened - before).toBe(1);
  });

  test("a fresh connection closed before any answer is not retried", async () => {
    const client = freshSender();
    const before = server.requests.length;
    server.script(() => "close");
    const result = await client.send({ url: server.url, method: "POST", body: "x" });
    expect(result.error).toMatchObject({ type: "network_error", code: "connection_reset" });
    expect(server.requests.length - before).toBe(1);
  });

  test("a pooled connection that sent part of an answer before closing is not retried", async () => {
    const client = freshSender();
    server.script(() => ({ parts: [{ bytes: OK }] }));
    await client.send({ url: server.url, method: "GET" });
    const before = server.requests.length;
    server.script(() => ({ parts: [{ bytes: "HTTP/1.1 200 OK\r\nContent-Le" }], after: "close" }));
    const result = await client.send({ url: server.url, method: "POST", body: "x" });
    expect(result.error).toMatchObject({ type: "network_error", code: "connection_reset" });
    expect(server.requests.length - before).toBe(1);
  });

  test("the retry happens once: a second close fails the send", async () => {
    const client = freshSender();
    server.script(() => ({ parts: [{ bytes: OK }] }));
    await client.send({ url: server.url, method: "GET" });
    const before = server.requests.length;
    server.script(() => "close");
    const result = await client.send({ url: server.url, method: "POST", body: "x" });
    expect(result.error).toMatchObject({ code: "connection_reset" });
    expect(server.requests.length - before).toBe(2);
  });
});

describe("framing on the wire", () => {
  test("a chunked answer written in pieces, after interim answers, then reused", async () => {
    const client = freshSender();
    const before = server.opened;
    server.script(() => ({
      parts: [
        { bytes: "HTTP/1.1 100 Continue\r\n\r\n" },
        { bytes: "HTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n", delayMs: 10 },
        { bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nchun", delayMs: 10 },
        { bytes: "\r\n3\r\nked\r\n0\r\n\r\n", delayMs: 10 },
      ],
    }));
    const result = await client.send({ url: server.url, method: "POST", body: "x" });
    expect([result.status, text(result.body)]).toEqual([200, "chunked"]);
    expect(result.headers).toEqual([["Transfer-Encoding", "chunked"]]);
    server.script(() => ({ parts: [{ bytes: OK }] }));
    expect((await client.send({ url: server.url, method: "GET" })).status).toBe(200);
    expect(server.opened - before).toBe(1);
  });

  test("HEAD, 204 and 304 answers carry no body and leave the connection usable", async () => {
    const client = freshSender();
    const before = server.opened;
    const answers = [
      "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n",
      "HTTP/1.1 204 No Content\r\n\r\n",
      "HTTP/1.1 304 Not Modified\r\n\r\n",
    ];
    server.script((request) => ({ parts: [{ bytes: answers[request.index % 3] as string }] }));
    const head = await client.send({ url: server.url, method: "HEAD" });
    const noContent = await client.send({ url: server.url, method: "GET" });
    const notModified = await client.send({ url: server.url, method: "GET" });
    expect([head.status, noContent.status, notModified.status]).toEqual([200, 204, 304]);
    expect([head.body.byteLength, noContent.body.byteLength]).toEqual([0, 0]);
    expect(server.opened - before).toBe(1);
  });

  test("a malformed answer is an invalid_response, and the next send works", async () => {
    server.script(() => ({ parts: [{ bytes: "HTTP/1.1 200 OK\r\nBad Header\r\n\r\n" }] }));
    const bad = await sender.send({ url: server.url, method: "GET" });
    expect(bad.error).toMatchObject({ type: "network_error", code: "invalid_response" });
    expect(bad.status).toBeNull();
    server.script(() => ({ parts: [{ bytes: OK }] }));
    expect((await sender.send({ url: server.url, method: "GET" })).status).toBe(200);
  });

  test("oversized answer headers are refused without waiting for their end", async () => {
    const huge = `HTTP/1.1 200 OK\r\nX-Huge: ${"h".repeat(100_000)}`;
    server.script(() => ({ parts: [{ bytes: huge }], after: "keep" }));
    const result = await sender.send({ url: server.url, method: "GET", timeoutMs: 1500 });
    expect(result.error).toMatchObject({ code: "invalid_response" });
    expect(result.error?.message).toContain("larger than 65536 bytes");
    expect(result.latencyMs).toBeLessThan(1000);
  });

  test("a slow head within the deadline is answered; a trickling body is cut at the deadline", async () => {
    server.script(() => ({ parts: [{ bytes: OK, delayMs: 150 }] }));
    expect((await sender.send({ url: server.url, method: "GET", timeoutMs: 1000 })).status).toBe(
      200,
    );
    server.script(() => ({
      parts: [
        { bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n" },
        { bytes: "1\r\nb\r\n", delayMs: 20 },
        { bytes: "1\r\nc\r\n0\r\n\r\n", delayMs: 2000 },
      ],
    }));
    const cut = await sender.send({ url: server.url, method: "GET", timeoutMs: 400 });
    expect([cut.status, text(cut.body), cut.bodyTruncated, cut.error]).toEqual([
      200,
      "ab",
      true,
      null,
    ]);
  });
});

describe("requests of any size against a real Bun.serve", () => {
  let serve: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    serve = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const body = new Uint8Array(await request.arrayBuffer());
        const stream = new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(`${body.byteLength}:`));
            controller.enqueue(body.subarray(0, 8));
            controller.close();
          },
        });
        return new Response(stream, { headers: { "x-method": request.method } });
      },
    });
  });
  afterAll(() => serve.stop(true));

  test("a 4 MiB body is written whole (partial writes wait for drain); streamed answers parse", async () => {
    const big = new Uint8Array(4 * 1024 * 1024).fill(7);
    const result = await sender.send({
      url: `http://127.0.0.1:${serve.port}/`,
      method: "PUT",
      body: big,
    });
    expect(result.status).toBe(200);
    expect(text(result.body).startsWith(`${big.byteLength}:`)).toBe(true);
  });

  test("300 sends at once through a small pool each get their own answer", async () => {
    const client = freshSender({ perOrigin: 8 });
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        client.send({ url: `http://127.0.0.1:${serve.port}/`, method: "POST", body: `#${i}` }),
      ),
    );
    expect(results.map((r) => text(r.body))).toEqual(
      Array.from({ length: 300 }, (_, i) => `${`#${i}`.length}:#${i}`),
    );
  });

  test("100 sends in a row over keep-alive all come back whole", async () => {
    const client = freshSender();
    for (let i = 0; i < 100; i++) {
      const result = await client.send({
        url: `http://127.0.0.1:${serve.port}/`,
        method: i % 2 ? "POST" : "GET",
        body: i % 2 ? `body-${i}` : undefined,
      });
      const sent = i % 2 ? `body-${i}` : "";
      expect([result.status, text(result.body)]).toEqual([200, `${sent.length}:${sent}`]);
    }
  });
});

describe("the address policy on every new connection", () => {
  test("a name is connected to the address that was checked, never looked up again", async () => {
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const lookups: string[] = [];
    const resolve: Resolve = async (name) => {
      lookups.push(name);
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const client = createOutboundSender({ policy: open, timeoutMs: 2000, resolve });
    const url = `http://pinned.example:${server.port}/p`;
    expect((await client.send({ url, method: "GET" })).status).toBe(200);
    expect((await client.send({ url, method: "GET" })).status).toBe(200);
    // One connection, one lookup: the pooled connection stays on its checked address.
    expect(lookups).toEqual(["pinned.example"]);
    expect(server.requests.at(-1)?.headers[0]).toEqual(["Host", `pinned.example:${server.port}`]);
  });

  test("when the first address refuses, the next checked one is tried", async () => {
    server.script(() => ({ parts: [{ bytes: OK }] }));
    // The server listens on 127.0.0.1 only: 127.0.0.2 refuses on its port.
    const resolve: Resolve = async () => [
      { address: "127.0.0.2", family: 4 },
      { address: "127.0.0.1", family: 4 },
    ];
    const client = createOutboundSender({ policy: open, timeoutMs: 2000, resolve });
    const result = await client.send({ url: `http://two.example:${server.port}/`, method: "GET" });
    expect([result.status, result.error]).toEqual([200, null]);
  });

  test("a name that resolves to a denied address is refused before any connection", async () => {
    const strict = createOutboundSender({
      policy: createOutboundPolicy({ deny: ["127.0.0.0/8"], allow: [] }),
      timeoutMs: 2000,
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    const before = server.opened;
    const result = await strict.send({ url: `http://x.example:${server.port}/`, method: "GET" });
    expect(result.error).toMatchObject({ code: "blocked_address" });
    expect(server.opened).toBe(before);
  });
});
