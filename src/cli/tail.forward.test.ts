import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type RawSink, startRawSink } from "../test-utils/raw-sink.ts";
import type { StoredRequest } from "./tail.api.ts";
import { forwardHeaders, forwardRequest, forwardUrl } from "./tail.forward.ts";

describe("forwardUrl", () => {
  test.each([
    ["http://localhost:3000", "", "", "http://localhost:3000/"],
    ["http://localhost:3000", "/hooks/gh", "a=1&b=%20", "http://localhost:3000/hooks/gh?a=1&b=%20"],
    ["http://localhost:3000/api/", "/x", "", "http://localhost:3000/api/x"],
    ["http://localhost:3000/api?key=1", "/x", "a=2", "http://localhost:3000/api/x?key=1&a=2"],
  ])("%s + %s ? %s", (target, path, query, expected) => {
    expect(forwardUrl(target, { path, query_string: query })).toBe(expected);
  });
});

describe("forwardHeaders", () => {
  test("keeps order and repeats, drops hop-by-hop ones and those Connection names, adds the loop guard", () => {
    const headers = forwardHeaders({
      raw_headers: [
        ["host", "weir.example"],
        ["connection", "keep-alive, x-private"],
        ["x-private", "hop"],
        ["transfer-encoding", "chunked"],
        ["content-length", "5"],
        ["set-cookie", "a=1"],
        ["set-cookie", "b=2"],
        ["x-signature", "sha256=abc"],
      ],
    });
    expect(headers).toEqual([
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
      ["x-signature", "sha256=abc"],
      ["x-weir-forwarded", "1"],
    ]);
  });
});

describe("forwardRequest goes through the outbound sender (same rules as server forwards)", () => {
  let sink: RawSink;
  beforeAll(async () => {
    sink = await startRawSink();
  });
  afterAll(() => sink.stop());

  const stored = (overrides: Partial<StoredRequest> = {}): StoredRequest =>
    ({
      id: "r1",
      method: "POST",
      path: "/hook",
      query_string: "a=1",
      headers: {},
      raw_headers: [
        ["host", "weir.example"],
        ["x-signature", "sig"],
        ["proxy-authorization", "Basic cHJveHk6c2VjcmV0"],
        ["proxy-anything", "x"],
        ["accept-encoding", "gzip"],
        ["content-length", "3"],
      ],
      body: "AAH/",
      body_encoding: "base64",
      ...overrides,
    }) as StoredRequest;

  test("the exact header bytes: received end-to-end headers, the loop guard, nothing of a client library", async () => {
    const result = await forwardRequest(`${sink.url}/local`, stored());
    expect([result.status, result.error]).toEqual([200, null]);
    const got = sink.requests.at(-1);
    expect(got?.requestLine).toBe("POST /local/hook?a=1 HTTP/1.1");
    expect(got?.headers).toEqual([
      ["Host", `127.0.0.1:${sink.port}`],
      ["x-signature", "sig"],
      ["accept-encoding", "gzip"],
      ["x-weir-forwarded", "1"],
      ["Content-Length", "3"],
      ["Connection", "keep-alive"],
    ]);
    expect(got?.body).toEqual(new Uint8Array([0, 1, 255]));
  });

  test("credentials in the target URL are sent as Basic auth and not shown", async () => {
    const result = await forwardRequest(`http://me:pw@127.0.0.1:${sink.port}/`, stored());
    expect(sink.requests.at(-1)?.headers).toContainEqual([
      "Authorization",
      `Basic ${btoa("me:pw")}`,
    ]);
    expect(result.url).toBe(`http://127.0.0.1:${sink.port}/hook?a=1`);
  });

  test("a failure is reported with its §8 code", async () => {
    sink.behave(() => "reset");
    const result = await forwardRequest(sink.url, stored());
    expect(result.status).toBeNull();
    expect(result.error).toStartWith("connection_reset: ");
    sink.behave(() => ({ answer: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" }));
  });
});
