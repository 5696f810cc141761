import { describe, expect, test } from "bun:test";
import { jsonOrText, parseHeaders, parseJsonField } from "./config-text.ts";

describe("config text", () => {
  test("headers from lines, and the bad line named", () => {
    expect(parseHeaders("x-a: 1\n\nx-b: two", "config.headers")).toEqual({
      headers: { "x-a": "1", "x-b": "two" },
    });
    expect(parseHeaders("x-a: 1\nnope", "config.headers")).toEqual({
      errors: { "config.headers": ["Line 2 is not “Name: value”."] },
    });
  });
  test("JSON where it parses, text otherwise", () => {
    expect(jsonOrText('{"a":1}')).toEqual({ a: 1 });
    expect(jsonOrText("hello $x$")).toBe("hello $x$");
    expect(parseJsonField("{", "config")).toEqual({ errors: { config: ["Not valid JSON."] } });
  });
});
