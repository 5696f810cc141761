import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RawSink, startRawSink } from "../../test-utils/raw-sink.ts";
import { createOutboundPolicy, LOCAL_NETWORK_RANGES } from "./outbound.policy.ts";
import { createOutboundSender, type Resolve } from "./outbound.sender.ts";

let sink: RawSink;
beforeAll(async () => {
  sink = await startRawSink();
});
afterAll(() => sink.stop());

const open = createOutboundPolicy({ deny: [], allow: [] });
const sender = createOutboundSender({ policy: open, timeoutMs: 2000 });
const answer = (head: string, body = "") => ({
  answer: `HTTP/1.1 ${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
});
const lastRequest = () => sink.requests.at(-1);

describe("what goes on the wire", () => {
  test("the caller's end-to-end headers in order, Host and Content-Length, nothing else added", async () => {
    sink.behave(() => answer("202 Accepted", "yes"));
    const body = new Uint8Array(256).map((_, i) => i);
    const result = await sender.send({
      url: `${sink.url}/in/a?q=1&r=%20`,
      method: "POST",
      headers: [
        ["X-Signature", "sig-1"],
        ["x-signature", "sig-2"],
        ["Connection", "close, X-Private"],
        ["X-Private", "per-hop"],
        ["Keep-Alive", "timeout=5"],
        ["Proxy-Authorization", "Basic c2VjcmV0"],
        ["Proxy-Anything", "x"],
        ["Host", "weir.example"],
        ["Content-Length", "999"],
        ["Transfer-Encoding", "chunked"],
        ["TE", "trailers"],
        ["Upgrade", "websocket"],
        ["Content-Type", "application/octet-stream"],
      ],
      body,
    });
    expect([result.status, result.error]).toEqual([202, null]);
    const got = lastRequest();
    expect(got?.requestLine).toBe("POST /in/a?q=1&r=%20 HTTP/1.1");
    expect(got?.headers).toEqual([
      ["Host", `127.0.0.1:${sink.port}`],
      ["X-Signature", "sig-1"],
      ["x-signature", "sig-2"],
      ["Content-Type", "application/octet-stream"],
      ["Content-Length", "256"],
      // The sender's own connection management, the one header it adds.
      ["Connection", "keep-alive"],
    ]);
    expect(got?.body).toEqual(body);
  });

  test("a GET without a body carries no Content-Length, user-agent, accept or accept-encoding", async () => {
    sink.behave(() => answer("200 OK", "ok"));
    await sender.send({ url: `${sink.url}/get`, method: "GET", headers: [["X-A", "1"]] });
    expect(lastRequest()?.head).toBe(
      `GET /get HTTP/1.1\r\nHost: 127.0.0.1:${sink.port}\r\nX-A: 1\r\nConnection: keep-alive`,
    );
  });

  test("an empty POST says Content-Length: 0; a GET with a body sends it", async () => {
    sink.behave(() => answer("200 OK"));
    await sender.send({ url: sink.url, method: "POST" });
    expect(lastRequest()?.headers).toContainEqual(["Content-Length", "0"]);
    await sender.send({ url: sink.url, method: "GET", body: "odd but sent" });
    expect(new TextDecoder().decode(lastRequest()?.body)).toBe("odd but sent");
  });

  test("URL credentials become Authorization: Basic (replacing the caller's) and are not shown", async () => {
    sink.behave(() => answer("200 OK"));
    const url = `http://us%40er:p%3Ass@127.0.0.1:${sink.port}/auth`;
    const result = await sender.send({
      url,
      method: "GET",
      headers: [["Authorization", "Bearer captured"]],
    });
    const basic = Buffer.from("us@er:p:ss").toString("base64");
    expect(lastRequest()?.headers).toEqual([
      ["Host", `127.0.0.1:${sink.port}`],
      ["Authorization", `Basic ${basic}`],
      ["Connection", "keep-alive"],
    ]);
    expect(result.url).toBe(`http://127.0.0.1:${sink.port}/auth`);
  });
});

describe("what comes back", () => {
  test("a redirect is returned as is, never followed", async () => {
    const before = sink.requests.length;
    sink.behave(() => ({
      answer:
        "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    }));
    const result = await sender.send({ url: `${sink.url}/from`, method: "GET" });
    expect(result.status).toBe(302);
    expect(result.headers).toContainEqual(["Location", "/elsewhere"]);
    expect(result.error).toEqual({ type: "http_error", code: "302", message: "answered 302" });
    expect(sink.requests.length).toBe(before + 1);
  });

  test("401 and 403 are authentication errors, other statuses http errors", async () => {
    for (const [status, type] of [
      [401, "authentication_error"],
      [403, "authentication_error"],
      [404, "http_error"],
      [503, "http_error"],
    ] as const) {
      sink.behave(() => answer(`${status} X`));
      const result = await sender.send({ url: sink.url, method: "GET" });
      expect(result.error).toMatchObject({ type, code: String(status) });
    }
  });

  test("the body is kept up to the cap; past it, the rest is dropped and flagged", async () => {
    const small = createOutboundSender({ policy: open, timeoutMs: 2000, bodyLimit: 1024 });
    sink.behave(() => answer("200 OK", "a".repeat(1024)));
    const exact = await small.send({ url: sink.url, method: "GET" });
    expect([exact.body.byteLength, exact.bodyTruncated]).toEqual([1024, false]);
    sink.behave(() => answer("200 OK", "b".repeat(100_000)));
    const big = await small.send({ url: sink.url, method: "GET" });
    expect([big.status, big.body.byteLength, big.bodyTruncated]).toEqual([200, 1024, true]);
    expect(new TextDecoder().decode(big.body)).toBe("b".repeat(1024));
  });

  test("the answer's bytes are not decoded (no decompression)", async () => {
    const gzip = Bun.gzipSync("zipped");
    sink.behave(() => ({
      answer: Buffer.concat([
        Buffer.from(
          `HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${gzip.byteLength}\r\nConnection: close\r\n\r\n`,
        ),
        gzip,
      ]),
    }));
    const result = await sender.send({ url: sink.url, method: "GET" });
    expect(result.body).toEqual(new Uint8Array(gzip));
  });

  test("no answer within the deadline is a timeout; the latency is measured", async () => {
    sink.behave(() => "silent");
    const result = await sender.send({ url: sink.url, method: "GET", timeoutMs: 200 });
    expect(result.status).toBeNull();
    expect(result.error).toEqual({
      type: "network_error",
      code: "timeout",
      message: "no answer within 200 ms",
    });
    expect(result.latencyMs).toBeGreaterThanOrEqual(190);
  });

  test("a status that came before the deadline stands; a stalled body is cut and flagged", async () => {
    sink.behave(() => ({
      answer: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab",
      keepOpen: true,
    }));
    const result = await sender.send({ url: sink.url, method: "GET", timeoutMs: 300 });
    expect([result.status, result.bodyTruncated, result.error]).toEqual([200, true, null]);
    expect(new TextDecoder().decode(result.body)).toBe("ab");
  });
});

describe("the outbound address policy at send time", () => {
  test.each([
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://2852039166/",
    "http://0xa9fea9fe/",
    "http://0251.0376.0251.0376/",
    "http://169.254.43518/",
    "http://0.0.0.0:1/",
    "http://[fe80::1]/",
    "http://224.0.0.1/",
  ])("%s is refused before connecting: network_error / blocked_address", async (url) => {
    const result = await sender.send({ url, method: "GET", timeoutMs: 500 });
    expect(result.status).toBeNull();
    expect(result.error).toMatchObject({ type: "network_error", code: "blocked_address" });
    expect(result.error?.message).toContain("outbound address policy");
  });

  test("a name is checked against what it resolves to, on every send (DNS rebinding)", async () => {
    const answers = [["127.0.0.1"], ["169.254.169.254"], ["127.0.0.1", "169.254.169.254"]];
    const resolve: Resolve = async () =>
      (answers.shift() ?? []).map((address) => ({ address, family: 4 }));
    const rebinding = createOutboundSender({ policy: open, timeoutMs: 2000, resolve });
    sink.behave(() => answer("200 OK", "ok"));
    const url = `http://rebind.example:${sink.port}/r`;
    const before = sink.requests.length;
    expect((await rebinding.send({ url, method: "GET" })).status).toBe(200);
    expect(lastRequest()?.headers[0]).toEqual(["Host", `rebind.example:${sink.port}`]);
    const flipped = await rebinding.send({ url, method: "GET" });
    expect(flipped.error).toMatchObject({ code: "blocked_address" });
    expect(flipped.error?.message).toContain("rebind.example resolves to 169.254.169.254");
    const mixed = await rebinding.send({ url, method: "GET" });
    expect(mixed.error).toMatchObject({ code: "blocked_address" });
    expect(sink.requests.length).toBe(before + 1);
  });

  test("denying local networks stops loopback by address and by localhost name; allow wins", async () => {
    const shared = createOutboundPolicy({ deny: LOCAL_NETWORK_RANGES, allow: [] });
    const strict = createOutboundSender({ policy: shared, timeoutMs: 2000 });
    for (const url of [sink.url, `http://localhost:${sink.port}/`, `http://127.1:${sink.port}/`]) {
      expect((await strict.send({ url, method: "GET" })).error).toMatchObject({
        code: "blocked_address",
      });
    }
    const resolvedToLoopback = createOutboundSender({
      policy: shared,
      timeoutMs: 2000,
      resolve: async () => [{ address: "::ffff:127.0.0.1", family: 6 }],
    });
    const named = await resolvedToLoopback.send({
      url: `http://x.example:${sink.port}`,
      method: "GET",
    });
    expect(named.error).toMatchObject({ code: "blocked_address" });
    const excepted = createOutboundSender({
      policy: createOutboundPolicy({ deny: LOCAL_NETWORK_RANGES, allow: ["127.0.0.1/32"] }),
      timeoutMs: 2000,
    });
    sink.behave(() => answer("200 OK"));
    expect((await excepted.send({ url: sink.url, method: "GET" })).status).toBe(200);
  });
});
