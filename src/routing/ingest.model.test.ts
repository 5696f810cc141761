import { describe, expect, test } from "bun:test";
import { JSON_DEPTH_MAX, nestsDeeperThan, requestView } from "./ingest.model.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("how deep a body may nest and still be read as JSON", () => {
  test("depth counts open arrays and objects, not brackets inside strings", () => {
    expect(nestsDeeperThan(bytes(nested(3)), 3)).toBe(false);
    expect(nestsDeeperThan(bytes(nested(4)), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('{"a":[{"b":1}]}'), 3)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":[{"b":{}}]}'), 3)).toBe(true);
    const inString = JSON.stringify({ s: "[[[[[[[[[[{{{{{{{{", t: 'a\\"[[[[[[[[' });
    expect(nestsDeeperThan(bytes(inString), 3)).toBe(false);
    // Side by side is not nested.
    expect(nestsDeeperThan(bytes(`[${Array(50).fill("[1]").join(",")}]`), 3)).toBe(false);
  });

  test("a body up to the limit is JSON to filters; a deeper one is opaque text", () => {
    const request = { method: "POST", path: "", queryString: "", headers: {}, rawHeaders: [] };
    const at = requestView({ ...request, body: bytes(nested(JSON_DEPTH_MAX)) });
    expect(Array.isArray(at.body)).toBe(true);
    const deeper = requestView({ ...request, body: bytes(nested(JSON_DEPTH_MAX + 1)) });
    expect(deeper.body).toBeUndefined();
  });
});
