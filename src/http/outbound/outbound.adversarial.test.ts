import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressInfo, createServer } from "node:net";
import { pollUntil } from "../../test-utils/poll.ts";
import { type ScriptedServer, startScriptedServer } from "../../test-utils/scripted-server.ts";
import { createOutboundPolicy } from "./outbound.policy.ts";
import { createOutboundSender, type Resolve } from "./outbound.sender.ts";

// A destination's owner as the adversary: what it answers, how slowly, and what its name resolves to.
const open = createOutboundPolicy({ deny: [], allow: [] });
const builtIn = createOutboundPolicy({ deny: [], allow: [] });
const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

let server: ScriptedServer;
beforeAll(() => {
  server = startScriptedServer();
});
afterAll(() => server.stop());

/** A TCP listener that accepts and then says nothing, reporting when each client goes away. */
function startMuteListener() {
  let openCount = 0;
  let closed = 0;
  const listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        openCount += 1;
      },
      data() {},
      close() {
        closed += 1;
      },
      error() {},
    },
  });
  return {
    port: listener.port,
    get open() {
      return openCount - closed;
    },
    get opened() {
      return openCount;
    },
    stop: () => listener.stop(true),
  };
}

/** A TCP listener that accepts and never reads: what the client writes fills the buffers and stops. */
async function startUnreadingListener() {
  let openCount = 0;
  let closed = 0;
  const server = createServer((socket) => {
    openCount += 1;
    socket.pause();
    socket.on("close", () => {
      closed += 1;
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get open() {
      return openCount - closed;
    },
    get opened() {
      return openCount;
    },
    stop: () => server.close(),
  };
}

describe("address forms that all mean a denied address", () => {
  const metadata = [
    "http://169.254.169.254/",
    "http://169.254.169.254./",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://0251.0376.0251.0376/",
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://169.16689662/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://[0:0:0:0:0:ffff:a9fe:a9fe]/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[64:ff9b::169.254.169.254]/",
    "http://[64:ff9b:1::a9fe:a9fe]/",
    "http://[2002:a9fe:a9fe::]/",
    "http://[::169.254.169.254]/",
    "http://[2001:0:4136:e378::5601:5601]/",
    "http://[fe80::1]/",
    "http://[FE80::abcd]/",
    "http://0/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://[::ffff:0.0.0.0]/",
    "http://224.0.0.1/",
    "http://[ff02::1]/",
    "http://255.255.255.255/",
    "http://user:pw@169.254.169.254:80/",
  ];
  for (const url of metadata) {
    test(`${url} is refused on save and on send`, async () => {
      const sender = createOutboundSender({ policy: builtIn, timeoutMs: 500 });
      expect(sender.urlProblem(url)).not.toBeNull();
      const result = await sender.send({ url, method: "GET" });
      expect(result.error).toMatchObject({ code: "blocked_address" });
    });
  }

  test("a localhost name with a trailing dot or in capitals is loopback for the deny list", () => {
    const strict = createOutboundPolicy({ deny: ["127.0.0.0/8", "::1/128"], allow: [] });
    for (const host of [
      "localhost.",
      "LOCALHOST",
      "a.localhost.",
      "[::1]",
      "127.1",
      "0x7f000001",
    ]) {
      expect(strict.checkUrl(`http://${host}:8080/`).allowed).toBe(false);
    }
  });

  test("a name with one denied address among several is refused, whatever the order", async () => {
    for (const order of [
      ["127.0.0.1", "169.254.169.254"],
      ["169.254.169.254", "127.0.0.1"],
      ["127.0.0.1", "::ffff:169.254.169.254"],
      ["127.0.0.1", "fe80::1%eth0"],
      ["127.0.0.1", "64:ff9b::a9fe:a9fe"],
      ["2002:a9fe:a9fe::1", "127.0.0.1"],
    ]) {
      const resolve: Resolve = async () => order.map((address) => ({ address, family: 4 }));
      const sender = createOutboundSender({ policy: open, timeoutMs: 1000, resolve });
      const before = server.opened;
      const result = await sender.send({
        url: `http://multi.example:${server.port}/`,
        method: "GET",
      });
      expect(result.error).toMatchObject({ code: "blocked_address" });
      expect(server.opened).toBe(before);
    }
  });

  test("a name whose resolver answers nonsense is refused, not connected", async () => {
    const resolve: Resolve = async () => [{ address: "not-an-address", family: 4 }];
    const sender = createOutboundSender({ policy: open, timeoutMs: 1000, resolve });
    const result = await sender.send({ url: `http://odd.example:${server.port}/`, method: "GET" });
    expect(result.error).toMatchObject({ code: "blocked_address" });
  });
});

describe("TLS names the URL's host", () => {
  test("the ClientHello carries the URL's host name as SNI, not the address it resolved to", async () => {
    let hello = Buffer.alloc(0);
    const listener = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(_socket, chunk) {
          hello = Buffer.concat([hello, chunk]);
        },
        error() {},
      },
    });
    try {
      const resolve: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
      const sender = createOutboundSender({ policy: open, timeoutMs: 300, resolve });
      await sender.send({ url: `https://sni-check.example:${listener.port}/`, method: "GET" });
      expect(hello.includes("sni-check.example")).toBe(true);
      expect(hello.includes("127.0.0.1")).toBe(false);
    } finally {
      listener.stop(true);
    }
  });
});

describe("nothing a caller passes can add a line to the request", () => {
  const injections: [string, { method?: string; headers?: [string, string][]; url?: string }][] = [
    ["CRLF in a header value", { headers: [["X-A", "1\r\nX-Injected: yes"]] }],
    ["LF alone in a header value", { headers: [["X-A", "1\nX-Injected: yes"]] }],
    ["CR alone in a header value", { headers: [["X-A", "1\rX-Injected: yes"]] }],
    ["NUL in a header value", { headers: [["X-A", "1\u0000"]] }],
    ["CRLF in a header name", { headers: [["X-A\r\nX-Injected", "yes"]] }],
    ["a colon in a header name", { headers: [["X-A: 1\r\nX-Injected", "yes"]] }],
    ["a space in a header name", { headers: [["X A", "yes"]] }],
    ["a character past latin1 in a value", { headers: [["X-A", "\u2028"]] }],
    ["CRLF in the method", { method: "GET / HTTP/1.1\r\nX-Injected: yes\r\n\r\nGET" }],
    ["a space in the method", { method: "GET /admin" }],
  ];
  for (const [what, request] of injections) {
    test(`${what} is refused and nothing is sent`, async () => {
      const sender = createOutboundSender({ policy: open, timeoutMs: 1000 });
      const before = server.requests.length;
      const result = await sender.send({
        url: `${server.url}/x`,
        method: request.method ?? "POST",
        headers: request.headers,
        body: "b",
      });
      expect(result.error).toMatchObject({ code: "invalid_request" });
      expect(server.requests.length).toBe(before);
    });
  }

  test("CR, LF, NUL and spaces in the URL's path and query are percent-encoded, Host comes from the URL", async () => {
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const sender = createOutboundSender({ policy: open, timeoutMs: 1000 });
    const url = `${server.url}/a\r\nX-Injected: yes\r\n/b c\u0000?q=1\r\nX-Q: 2 \u0000#frag\r\nX: y`;
    const result = await sender.send({ url, method: "GET", headers: [["Host", "evil.example"]] });
    expect(result.status).toBe(200);
    const seen = server.requests.at(-1);
    expect(seen?.requestLine).toBe("GET /aX-Injected:%20yes/b%20c%00?q=1X-Q:%202%20%00 HTTP/1.1");
    expect(seen?.headers.map(([name]) => name)).toEqual(["Host", "Connection"]);
    expect(seen?.headers[0]).toEqual(["Host", `127.0.0.1:${server.port}`]);
  });
});

describe("a destination's answers cannot hold memory, time or sockets", () => {
  test("an endless chunked body is cut at the body limit and its socket closed", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 3000, bodyLimit: 1024 });
    const chunk = `400\r\n${"z".repeat(1024)}\r\n`;
    server.script(() => ({
      parts: [
        { bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" },
        ...Array.from({ length: 64 }, () => ({ bytes: chunk })),
      ],
      after: "keep",
    }));
    const before = server.opened;
    const result = await sender.send({ url: server.url, method: "GET" });
    expect([result.status, result.body.byteLength, result.bodyTruncated]).toEqual([
      200,
      1024,
      true,
    ]);
    await pollUntil(() => !server.isOpen(before + 1), { what: "the cut socket to close" });
  });

  test("endless header lines fail at the head limit and the socket is closed", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 3000, headLimit: 4096 });
    server.script(() => ({
      parts: [
        { bytes: "HTTP/1.1 200 OK\r\n" },
        ...Array.from({ length: 200 }, (_, i) => ({ bytes: `X-${i}: ${"v".repeat(40)}\r\n` })),
      ],
      after: "keep",
    }));
    const before = server.opened;
    const result = await sender.send({ url: server.url, method: "GET" });
    expect(result.error).toMatchObject({ code: "invalid_response" });
    await pollUntil(() => !server.isOpen(before + 1), { what: "the refused socket to close" });
  });

  test("a head dripped one byte at a time runs into the deadline, and the socket is closed", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 400 });
    server.script(() => ({
      parts: [...OK].map((byte) => ({ bytes: byte, delayMs: 60 })),
      after: "keep",
    }));
    const before = server.opened;
    const result = await sender.send({ url: server.url, method: "GET" });
    expect(result.error).toMatchObject({ code: "timeout" });
    expect(result.latencyMs).toBeLessThan(1500);
    await pollUntil(() => !server.isOpen(before + 1), { what: "the dripping socket to close" });
  });

  test("a server that never reads a large body: the deadline ends it and the socket is closed", async () => {
    const mute = await startUnreadingListener();
    try {
      const sender = createOutboundSender({ policy: open, timeoutMs: 400 });
      const result = await sender.send({
        url: `http://127.0.0.1:${mute.port}/`,
        method: "POST",
        body: new Uint8Array(32 * 1024 * 1024),
      });
      expect(result.error).toMatchObject({ code: "timeout" });
      await pollUntil(() => mute.opened === 1 && mute.open === 0, { what: "the socket to close" });
    } finally {
      mute.stop();
    }
  });

  test("an https server that never finishes the handshake: the deadline closes the socket", async () => {
    const mute = startMuteListener();
    try {
      const sender = createOutboundSender({ policy: open, timeoutMs: 300 });
      const result = await sender.send({ url: `https://127.0.0.1:${mute.port}/`, method: "GET" });
      expect(result.error).toMatchObject({ code: "timeout" });
      await pollUntil(() => mute.opened === 1 && mute.open === 0, {
        what: "the stalled handshake's socket to close",
        timeoutMs: 3000,
      });
    } finally {
      mute.stop();
    }
  });

  test("a send whose deadline passed while its name was resolved opens no connection afterwards", async () => {
    const mute = startMuteListener();
    try {
      let resolved = false;
      const slowResolve: Resolve = async () => {
        await pollUntil(() => timedOut, { what: "the send to time out" });
        resolved = true;
        return [{ address: "127.0.0.1", family: 4 }];
      };
      let timedOut = false;
      const slow = createOutboundSender({ policy: open, timeoutMs: 100, resolve: slowResolve });
      const result = await slow.send({ url: `http://slow.example:${mute.port}/`, method: "GET" });
      timedOut = true;
      expect(result.error).toMatchObject({ code: "timeout" });
      await pollUntil(() => resolved, { what: "the late resolution" });
      // A later send's connection is the first the listener sees.
      const later = createOutboundSender({ policy: open, timeoutMs: 100 });
      await later.send({ url: `http://127.0.0.1:${mute.port}/`, method: "GET" });
      expect(mute.opened).toBe(1);
    } finally {
      mute.stop();
    }
  });

  test("an aborted https send during the handshake closes the socket", async () => {
    const mute = startMuteListener();
    try {
      const sender = createOutboundSender({ policy: open, timeoutMs: 10_000 });
      const controller = new AbortController();
      const sending = sender.send({
        url: `https://127.0.0.1:${mute.port}/`,
        method: "GET",
        signal: controller.signal,
      });
      await pollUntil(() => mute.opened === 1, { what: "the connection" });
      controller.abort();
      expect((await sending).error).toMatchObject({ code: "aborted" });
      await pollUntil(() => mute.open === 0, {
        what: "the aborted handshake's socket to close",
        timeoutMs: 3000,
      });
    } finally {
      mute.stop();
    }
  });
});

describe("framing a hostile answer", () => {
  const cases: [string, string][] = [
    ["a negative Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"],
    [
      "two different Content-Lengths",
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
    ],
    ["a Content-Length with a sign", "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok"],
    [
      "a Content-Length past 2^53",
      "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok",
    ],
    ["an obs-folded header", "HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\nok"],
    ["a space before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok"],
    ["a bare CR inside the head", "HTTP/1.1 200 OK\rContent-Length: 2\r\n\r\nok"],
  ];
  for (const [what, bytes] of cases) {
    test(`${what} is an invalid_response and the socket is not kept`, async () => {
      const sender = createOutboundSender({ policy: open, timeoutMs: 500 });
      server.script(() => ({ parts: [{ bytes }], after: "keep" }));
      const before = server.opened;
      const result = await sender.send({ url: server.url, method: "GET" });
      expect(result.error?.code === "invalid_response" || result.error?.code === "timeout").toBe(
        true,
      );
      expect(result.status).toBeNull();
      await pollUntil(() => !server.isOpen(before + 1), { what: "the socket to close" });
    });
  }

  test("an answer with bare LF line ends stands, and its socket is not reused", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 1000 });
    server.script(() => ({
      parts: [{ bytes: "HTTP/1.1 201 Created\nContent-Length: 2\n\nok" }],
      after: "keep",
    }));
    const before = server.opened;
    const first = await sender.send({ url: server.url, method: "POST", body: "x" });
    expect([first.status, new TextDecoder().decode(first.body), first.error]).toEqual([
      201,
      "ok",
      null,
    ]);
    server.script(() => ({ parts: [{ bytes: OK }] }));
    await sender.send({ url: server.url, method: "GET" });
    expect(server.opened - before).toBe(2);
  });

  test("endless interim answers count against the head limit", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 3000, headLimit: 2048 });
    server.script(() => ({
      parts: Array.from({ length: 200 }, () => ({ bytes: "HTTP/1.1 100 Continue\r\n\r\n" })),
      after: "keep",
    }));
    const result = await sender.send({ url: server.url, method: "POST", body: "x" });
    expect(result.error).toMatchObject({ code: "invalid_response" });
    expect(result.error?.message).toContain("larger than 2048 bytes");
  });

  test("Content-Length with chunked: the chunks frame the body and the socket is not reused", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 1000 });
    server.script(() => ({
      parts: [
        {
          bytes:
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        },
      ],
      after: "keep",
    }));
    const before = server.opened;
    const first = await sender.send({ url: server.url, method: "GET" });
    expect([first.status, new TextDecoder().decode(first.body)]).toEqual([200, "ok"]);
    server.script(() => ({ parts: [{ bytes: OK }] }));
    await sender.send({ url: server.url, method: "GET" });
    expect(server.opened - before).toBe(2);
  });

  test("bytes after a complete answer are never read as the next request's answer", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 1000 });
    const smuggled = "HTTP/1.1 201 Created\r\nContent-Length: 7\r\n\r\nforged!";
    server.script(() => ({ parts: [{ bytes: OK + smuggled }], after: "keep" }));
    const before = server.opened;
    expect((await sender.send({ url: server.url, method: "GET" })).status).toBe(200);
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const second = await sender.send({ url: server.url, method: "GET" });
    expect([second.status, new TextDecoder().decode(second.body)]).toEqual([200, "ok"]);
    expect(server.opened - before).toBe(2);
  });

  test("a late extra answer on an idle socket closes it; the next request gets its own answer", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 1000 });
    const forged = "HTTP/1.1 201 Created\r\nContent-Length: 7\r\n\r\nforged!";
    server.script(() => ({
      parts: [{ bytes: OK }, { bytes: forged, delayMs: 30 }],
      after: "keep",
    }));
    const before = server.opened;
    expect((await sender.send({ url: server.url, method: "GET" })).status).toBe(200);
    await pollUntil(() => !server.isOpen(before + 1), { what: "the idle socket to be dropped" });
    server.script(() => ({ parts: [{ bytes: OK }] }));
    const second = await sender.send({ url: server.url, method: "GET" });
    expect([second.status, new TextDecoder().decode(second.body)]).toEqual([200, "ok"]);
  });

  test("an answer that comes before the body was all written stands, and its socket is not reused", async () => {
    let opened = 0;
    const early = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open() {
          opened += 1;
        },
        data(socket) {
          // Answers at the first bytes, keeps the connection, and reads the rest as it comes.
          if (socket.data) return;
          socket.data = true;
          socket.write("HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n");
        },
        error() {},
      },
      data: false as boolean,
    });
    try {
      const sender = createOutboundSender({ policy: open, timeoutMs: 3000 });
      const url = `http://127.0.0.1:${early.port}/`;
      const first = await sender.send({ url, method: "POST", body: new Uint8Array(64 << 20) });
      expect(first.status).toBe(413);
      const second = await sender.send({ url, method: "POST", body: "small" });
      expect(second.status).toBe(413);
      expect(opened).toBe(2);
    } finally {
      early.stop(true);
    }
  });

  test("a POST on a pooled socket that got one answer byte before the close is sent once", async () => {
    const sender = createOutboundSender({ policy: open, timeoutMs: 1000 });
    server.script(() => ({ parts: [{ bytes: OK }] }));
    await sender.send({ url: server.url, method: "POST", body: "warm" });
    server.script(() => ({ parts: [{ bytes: "H" }], after: "close" }));
    const before = server.requests.length;
    const result = await sender.send({ url: server.url, method: "POST", body: "once" });
    expect(result.status).toBeNull();
    expect(server.requests.length - before).toBe(1);
  });
});
