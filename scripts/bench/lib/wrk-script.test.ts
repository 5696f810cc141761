import { describe, expect, test } from "bun:test";
import { buildWrkScript, jsonBody, luaString } from "./wrk-script.ts";

describe("jsonBody", () => {
  test("is valid JSON of exactly the asked size", () => {
    for (const size of [2, 10, 40, 1024, 16 * 1024]) {
      const body = jsonBody(size);
      expect(new TextEncoder().encode(body).length).toBe(size);
      expect(() => JSON.parse(body)).not.toThrow();
    }
  });
  test("rejects sizes no JSON object fits in", () => {
    expect(() => jsonBody(1)).toThrow();
    expect(() => jsonBody(10.5)).toThrow();
  });
});

describe("luaString", () => {
  test("escapes quotes, backslashes, control and non-ASCII bytes", () => {
    expect(luaString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(luaString("x\ny")).toBe('"x\\010y"');
    expect(luaString("é")).toBe('"\\195\\169"');
  });
});

describe("buildWrkScript", () => {
  test("GET without body sets method and path only", () => {
    expect(buildWrkScript({ method: "GET", path: "/healthz" })).toBe(
      'wrk.method = "GET"\nwrk.path = "/healthz"\n',
    );
  });
  test("POST with body adds the body and a JSON content type unless given", () => {
    const script = buildWrkScript({
      method: "POST",
      path: "/c/x",
      bodyBytes: 64,
      headers: { "X-Token": "t" },
    });
    expect(script).toContain('wrk.headers["Content-Type"] = "application/json"');
    expect(script).toContain('wrk.headers["X-Token"] = "t"');
    expect(script).toContain(`wrk.body = ${luaString(jsonBody(64))}\n`);
    const own = buildWrkScript({
      method: "POST",
      path: "/",
      bodyBytes: 8,
      headers: { "Content-Type": "text/plain" },
    });
    expect(own).toContain('wrk.headers["Content-Type"] = "text/plain"');
    expect(own).not.toContain("application/json");
  });
});

describe("unique bodies", () => {
  const body = '{"id":"evt_00000000000000","n":1}';
  test("the token becomes a per-request counter of the same width around the body's other bytes", () => {
    const script = buildWrkScript({
      method: "POST",
      path: "/in/x",
      body,
      uniqueToken: "00000000000000",
    });
    expect(script).toContain('local prefix = "{\\"id\\":\\"evt_"');
    expect(script).toContain('local suffix = "\\",\\"n\\":1}"');
    expect(script).toContain('string.format("%014d", counter)');
    expect(script).toContain("request = function()");
  });
  test("a token missing from the body, or too short to stay unique, is refused", () => {
    expect(() =>
      buildWrkScript({ method: "POST", path: "/", body, uniqueToken: "111111111111111" }),
    ).toThrow();
    expect(() => buildWrkScript({ method: "POST", path: "/", body, uniqueToken: "000" })).toThrow();
  });
});
