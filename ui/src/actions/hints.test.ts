import { describe, expect, test } from "bun:test";
import { moved, templatesAt } from "./hints.ts";

const chain = [
  {
    type: "extract_json" as const,
    enabled: true,
    config: { source: "body", extractions: [{ path: "repo.name", variable: "repo" }] },
  },
  { type: "http_request" as const, enabled: true, config: { url: "http://x", method: "POST" } },
  { type: "run_script" as const, enabled: true, config: { code: "variables.count = 1;" } },
  { type: "store_variable" as const, enabled: false, config: { name: "off", value: 1 } },
  { type: "modify_response" as const, enabled: true, config: {} },
];

describe("templatesAt", () => {
  test("the first action sees the request only", () => {
    const first = templatesAt(chain, 0);
    expect(first).toContain("$request.body.<path>$");
    expect(first).not.toContain("$repo$");
    expect(first).not.toContain("$http.status$");
  });
  test("later actions see earlier variables and the answer after an http_request", () => {
    expect(templatesAt(chain, 1)).toContain("$repo$");
    expect(templatesAt(chain, 1)).not.toContain("$http.status$");
    const last = templatesAt(chain, 4);
    expect(last).toContain("$http.status$");
    expect(last).toContain("$count$");
    expect(last).not.toContain("$off$");
  });
});

describe("moved", () => {
  test("swaps with the neighbour, and keeps the array at an edge", () => {
    const items = ["a", "b", "c"];
    expect(moved(items, 1, -1)).toEqual(["b", "a", "c"]);
    expect(moved(items, 1, 1)).toEqual(["a", "c", "b"]);
    expect(moved(items, 0, -1)).toBe(items);
  });
});
