import { describe, expect, test } from "bun:test";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import {
  canCarryBody,
  forwardHeaders,
  forwardTarget,
  isRetryable,
  shouldForward,
} from "./forwards.model.ts";

describe("forwardHeaders", () => {
  test("keeps order and repeats; drops hop-by-hop, proxy-*, Host, Content-Length; adds the guard", () => {
    const sent = forwardHeaders([
      ["Host", "weir.example"],
      ["X-Sig", "abc"],
      ["Connection", "keep-alive, X-Private"],
      ["Keep-Alive", "timeout=5"],
      ["X-Private", "secret-hop"],
      ["Proxy-Authorization", "Basic x"],
      ["Proxy-Connection", "keep-alive"],
      ["Proxy-Anything", "x"],
      ["TE", "trailers"],
      ["Trailer", "X-T"],
      ["Transfer-Encoding", "chunked"],
      ["Upgrade", "websocket"],
      ["Content-Length", "12"],
      ["Content-Type", "application/json"],
      ["x-multi", "1"],
      ["X-Multi", "2"],
    ]);
    expect(sent).toEqual([
      ["X-Sig", "abc"],
      ["Content-Type", "application/json"],
      ["x-multi", "1"],
      ["X-Multi", "2"],
      ["x-weir-forwarded", "1"],
    ]);
  });

  test("an incoming loop-guard header is not duplicated", () => {
    expect(forwardHeaders([["X-Weir-Forwarded", "1"]])).toEqual([["x-weir-forwarded", "1"]]);
  });
});

describe("forwardTarget", () => {
  test.each([
    ["http://t.example/in", "", "", "http://t.example/in"],
    ["http://t.example/in", "/a/b", "", "http://t.example/in/a/b"],
    ["http://t.example/in/", "/a", "x=1", "http://t.example/in/a?x=1"],
    ["http://t.example", "/a", "", "http://t.example/a"],
    ["http://t.example/in?k=v", "", "x=1&y=%20", "http://t.example/in?k=v&x=1&y=%20"],
    ["https://u:p@t.example:8443/in#frag", "/a", "", "https://u:p@t.example:8443/in/a"],
  ])("%s + %p + %p → %s", (base, path, query, target) => {
    expect(forwardTarget(base, path, query)).toBe(target);
  });
});

describe("when to forward and retry", () => {
  test("only with a forward URL and without the loop guard", () => {
    const plain = makeCapturedRequest({ id: "r", endpointId: "e", headers: {} });
    const guarded = makeCapturedRequest({
      id: "r",
      endpointId: "e",
      headers: { "x-weir-forwarded": "1" },
    });
    expect(shouldForward(plain, "http://t.example")).toBe(true);
    expect(shouldForward(plain, null)).toBe(false);
    expect(shouldForward(guarded, "http://t.example")).toBe(false);
  });

  test.each([
    [null, true],
    [200, false],
    [302, false],
    [404, false],
    [408, true],
    [429, true],
    [500, true],
    [503, true],
  ])("status %p retryable: %p", (statusCode, retry) => {
    expect(isRetryable({ statusCode })).toBe(retry);
  });

  test("a try the address policy refused is not retried", () => {
    expect(
      isRetryable({ statusCode: null, error: "blocked_address: 169.254.169.254 is denied" }),
    ).toBe(false);
    expect(isRetryable({ statusCode: null, error: "connection_refused: ECONNREFUSED" })).toBe(true);
  });

  test("every body travels but a HEAD's", () => {
    expect(["GET", "head", "POST", "DELETE"].map(canCarryBody)).toEqual([true, false, true, true]);
  });
});
