import { describe, expect, test } from "bun:test";
import { forwardHeaders, forwardUrl } from "./tail.forward.ts";

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
      headers: { connection: "keep-alive, x-private" },
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
