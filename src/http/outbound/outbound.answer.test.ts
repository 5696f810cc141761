import { describe, expect, test } from "bun:test";
import { AnswerParser } from "./outbound.answer.ts";

// Every answer is fed whole, then split in two at every offset, then byte by byte: the result
// must not depend on how the socket happened to cut the bytes.
interface Case {
  name: string;
  bytes: string;
  method?: string;
  /** The peer closes after the bytes. */
  close?: boolean;
  bodyLimit?: number;
  headLimit?: number;
  expected:
    | { status: number; body: string; truncated?: boolean; reusable: boolean; headers?: number }
    | { error: string };
}

const CASES: Case[] = [
  {
    name: "Content-Length body, keep-alive",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\nhello",
    expected: { status: 200, body: "hello", reusable: true, headers: 2 },
  },
  {
    name: "chunked body with an extension and trailers",
    bytes:
      "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: t\r\n\r\n",
    expected: { status: 201, body: "hello world", reusable: true },
  },
  {
    name: "bare LF line ends (small embedded servers) are read, the socket not reused",
    bytes: "HTTP/1.1 200 OK\nContent-Length: 2\nX-A: 1\n\nok",
    expected: { status: 200, body: "ok", reusable: false, headers: 2 },
  },
  {
    name: "a head ended by CRLF then a bare LF is read, the socket not reused",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\nok",
    expected: { status: 200, body: "ok", reusable: false, headers: 1 },
  },
  {
    name: "chunked with bare LF lines is read, the socket not reused",
    bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nok\n1\r\n!\n0\n\n",
    expected: { status: 200, body: "ok!", reusable: false },
  },
  {
    name: "close-delimited body",
    bytes: "HTTP/1.1 200 OK\r\n\r\nuntil the end",
    close: true,
    expected: { status: 200, body: "until the end", reusable: false },
  },
  {
    name: "HEAD: a Content-Length but no body",
    method: "HEAD",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n",
    expected: { status: 200, body: "", reusable: true },
  },
  {
    name: "204 with a stray Content-Length has no body",
    bytes: "HTTP/1.1 204 No Content\r\nContent-Length: 4\r\n\r\n",
    expected: { status: 204, body: "", reusable: true },
  },
  {
    name: "304 has no body",
    bytes: "HTTP/1.1 304 Not Modified\r\nETag: x\r\n\r\n",
    expected: { status: 304, body: "", reusable: true },
  },
  {
    name: "100 Continue and 103 Early Hints are skipped",
    bytes:
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok",
    expected: { status: 202, body: "ok", reusable: true, headers: 1 },
  },
  {
    name: "Connection: close is not reused",
    bytes: "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 2\r\n\r\nok",
    expected: { status: 200, body: "ok", reusable: false },
  },
  {
    name: "HTTP/1.0 is not reused",
    bytes: "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    expected: { status: 200, body: "ok", reusable: false },
  },
  {
    name: "Transfer-Encoding wins over Content-Length, and the socket is not reused",
    bytes:
      "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
    expected: { status: 200, body: "ok", reusable: false },
  },
  {
    name: "a transfer coding other than chunked last reads to the close",
    bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nzz",
    close: true,
    expected: { status: 200, body: "zz", reusable: false },
  },
  {
    name: "equal repeated lengths are one length",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2, 2\r\n\r\nok",
    expected: { status: 200, body: "ok", reusable: true },
  },
  {
    name: "a Content-Length body past the cap is cut and flagged",
    bytes: `HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n${"a".repeat(10)}`,
    bodyLimit: 4,
    expected: { status: 200, body: "aaaa", truncated: true, reusable: false },
  },
  {
    name: "a body exactly at the cap is whole",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nabcd",
    bodyLimit: 4,
    expected: { status: 200, body: "abcd", reusable: true },
  },
  {
    name: "a chunked body past the cap is cut and flagged",
    bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n",
    bodyLimit: 4,
    expected: { status: 200, body: "abcd", truncated: true, reusable: false },
  },
  {
    name: "a close-delimited body past the cap is cut and flagged",
    bytes: "HTTP/1.1 200 OK\r\n\r\nabcdef",
    bodyLimit: 4,
    expected: { status: 200, body: "abcd", truncated: true, reusable: false },
  },
  {
    name: "a Content-Length body the peer cut short keeps what came",
    bytes: "HTTP/1.1 500 Oops\r\nContent-Length: 10\r\n\r\nab",
    close: true,
    expected: { status: 500, body: "ab", truncated: true, reusable: false },
  },
  {
    name: "a chunked body the peer cut short keeps what came",
    bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
    close: true,
    expected: { status: 200, body: "ab", truncated: true, reusable: false },
  },
  {
    name: "bytes after a complete answer spoil the connection",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n",
    expected: { status: 200, body: "ok", reusable: false },
  },
  {
    name: "not HTTP",
    bytes: "SSH-2.0-OpenSSH_9.2\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "a bad status line",
    bytes: "HTTP/1.1 2000 OK\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "HTTP/2 status line",
    bytes: "HTTP/2 200\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "101 was never asked for",
    bytes: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "conflicting lengths",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
    expected: { error: "invalid_response" },
  },
  {
    name: "a length that is not a number",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "a folded header line (obs-fold)",
    bytes: "HTTP/1.1 200 OK\r\nX-A: 1\r\n  continued\r\nContent-Length: 0\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "white space before the colon",
    bytes: "HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "a control character in a value",
    bytes: "HTTP/1.1 200 OK\r\nX-A: a\u0000b\r\nContent-Length: 0\r\n\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "a chunk size that is not hex",
    bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    expected: { error: "invalid_response" },
  },
  {
    name: "a chunk without its CRLF",
    bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX",
    expected: { error: "invalid_response" },
  },
  {
    name: "a head over the limit",
    bytes: `HTTP/1.1 200 OK\r\nX-Big: ${"b".repeat(200)}\r\nContent-Length: 0\r\n\r\n`,
    headLimit: 128,
    expected: { error: "invalid_response" },
  },
  {
    name: "interim answers count toward the head limit",
    bytes: `${"HTTP/1.1 100 Continue\r\n\r\n".repeat(10)}HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n`,
    headLimit: 128,
    expected: { error: "invalid_response" },
  },
  {
    name: "closed in the middle of the head",
    bytes: "HTTP/1.1 200 OK\r\nContent-Le",
    close: true,
    expected: { error: "connection_reset" },
  },
  {
    name: "closed before any byte",
    bytes: "",
    close: true,
    expected: { error: "connection_reset" },
  },
];

function run(c: Case, pieces: Uint8Array[]) {
  const parser = new AnswerParser({
    method: c.method ?? "GET",
    bodyLimit: c.bodyLimit ?? 1024,
    headLimit: c.headLimit ?? 4096,
  });
  try {
    for (const piece of pieces) parser.push(piece);
    if (c.close) parser.end();
  } catch (error) {
    return { error: (error as { code: string }).code };
  }
  if (!parser.done) return { error: "incomplete" };
  const answer = parser.result();
  return {
    status: answer.status,
    body: Buffer.from(answer.body).toString("latin1"),
    truncated: answer.bodyTruncated,
    reusable: parser.reusable,
    headers: answer.headers.length,
  };
}

function splits(bytes: Uint8Array): Uint8Array[][] {
  const ways = [[bytes], Array.from(bytes, (byte) => Uint8Array.of(byte))];
  for (let at = 1; at < bytes.byteLength; at++)
    ways.push([bytes.subarray(0, at), bytes.subarray(at)]);
  return ways;
}

describe("an answer is parsed the same however its bytes are cut", () => {
  test.each(CASES.map((c) => [c.name, c] as const))("%s", (_, c) => {
    const bytes = Buffer.from(c.bytes, "latin1");
    const expected =
      "error" in c.expected
        ? c.expected
        : { truncated: false, ...c.expected, headers: expect.any(Number) };
    for (const pieces of splits(bytes)) {
      const got = run(c, pieces);
      expect(got).toMatchObject(expected);
      if ("headers" in c.expected && c.expected.headers !== undefined) {
        expect(got).toMatchObject({ headers: c.expected.headers });
      }
    }
  });
});

describe("state a sender relies on", () => {
  test.each([
    ["timeout=5", 5000],
    ["timeout=2, max=100", 2000],
    ['max=3, timeout="7"', 7000],
    ["max=100", null],
    ["timeouts=9", null],
  ])("Keep-Alive: %s → the server keeps an idle connection %p ms", (value, expected) => {
    const parser = new AnswerParser({ method: "GET", bodyLimit: 10, headLimit: 200 });
    parser.push(Buffer.from(`HTTP/1.1 204 No Content\r\nKeep-Alive: ${value}\r\n\r\n`));
    expect(parser.serverIdleMs).toBe(expected);
  });

  test("`received` turns true with the first byte; the status once the head is whole", () => {
    const parser = new AnswerParser({ method: "GET", bodyLimit: 10, headLimit: 100 });
    expect(parser.received).toBe(false);
    parser.push(Buffer.from("HTTP/1.1 200"));
    expect([parser.received, parser.status]).toEqual([true, null]);
    parser.push(Buffer.from(" OK\r\nContent-Length: 3\r\n\r\na"));
    expect([parser.status, parser.done]).toEqual([200, false]);
    parser.cut();
    expect(parser.result()).toMatchObject({ status: 200, bodyTruncated: true });
    expect(parser.reusable).toBe(false);
  });

  test("a kept body does not share memory with the bytes the socket handed over", () => {
    const parser = new AnswerParser({ method: "GET", bodyLimit: 10, headLimit: 100 });
    const chunk = Buffer.from("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    parser.push(chunk);
    chunk.fill(0);
    expect(Buffer.from(parser.result().body).toString()).toBe("ok");
  });
});

describe("whatever the bytes, the parser ends in an answer or its own error", () => {
  // A seeded generator: a failure here names a seed that reproduces it.
  const random = (seed: number) => () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const PIECES = [
    "HTTP/1.1 200 OK\r\n",
    "HTTP/1.1 100 Continue\r\n\r\n",
    "Content-Length: 3\r\n",
    "Transfer-Encoding: chunked\r\n",
    "Connection: close\r\n",
    "\r\n",
    "3\r\nabc\r\n",
    "0\r\n\r\n",
    "ffffffffffff\r\n",
    "X: \u0000\r\n",
    " folded\r\n",
    "abc",
    "\n",
  ];

  test("2,000 random answers built from real and broken pieces, cut at random", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const next = random(seed);
      let text = next() < 0.8 ? "HTTP/1.1 200 OK\r\n" : "";
      for (let i = Math.floor(next() * 8); i > 0; i--) {
        text += PIECES[Math.floor(next() * PIECES.length)];
      }
      const bytes = Buffer.from(text, "latin1");
      const parser = new AnswerParser({
        method: next() < 0.1 ? "HEAD" : "GET",
        bodyLimit: 8,
        headLimit: 96,
      });
      try {
        for (let at = 0; at < bytes.byteLength; ) {
          const size = 1 + Math.floor(next() * 10);
          parser.push(bytes.subarray(at, at + size));
          at += size;
        }
        parser.end();
        expect(parser.done).toBe(true);
        expect(parser.result().body.byteLength).toBeLessThanOrEqual(8);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code !== "invalid_response" && code !== "connection_reset") {
          throw new Error(`seed ${seed}: ${String(error)}`);
        }
      }
    }
  });
});
