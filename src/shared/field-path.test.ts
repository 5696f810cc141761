import { describe, expect, test } from "bun:test";
import {
  type FieldPath,
  parseFieldPath,
  type RequestView,
  resolveFieldPath,
} from "./field-path.ts";

const view: RequestView = {
  body: { a: { b: [{ c: 1 }, { c: 2 }, { d: 3 }] }, list: [10, 20], nil: null, "k-1": "v" },
  headers: { "x-event": "push" },
  query: { q: "1" },
  path: { rest: "a/b" },
};

function parsed(text: string): FieldPath {
  const path = parseFieldPath(text);
  if (typeof path === "string") throw new Error(`${text}: ${path}`);
  return path;
}

describe("field paths: parsing", () => {
  test.each([
    ["body.a.b[0].c", "body", 4, false],
    ["body.a.b[*].c", "body", 4, true],
    ["body", "body", 0, false],
    ["body[1]", "body", 1, false],
    ["headers.X-Event", "headers", 1, false],
    ["query.q", "query", 1, false],
    ["path.rest", "path", 1, false],
    ["body.grid[0][*]", "body", 3, true],
  ])("%s", (text, root, steps, many) => {
    const path = parsed(text);
    expect([path.root as string, path.steps.length, path.selectsMany]).toEqual([root, steps, many]);
  });

  test("header names are lowercased, body keys are not", () => {
    expect(parsed("headers.X-Event").steps).toEqual([{ kind: "key", key: "x-event" }]);
    expect(parsed("body.X").steps).toEqual([{ kind: "key", key: "X" }]);
  });

  test.each([
    ["", "must not be empty"],
    ["bodies.a", "must start with"],
    ["a.b", "must start with"],
    ["body..a", "malformed segment"],
    ["body.a.", "malformed segment"],
    ["body.a[x]", "malformed segment"],
    ["body.a[-1]", "malformed segment"],
    ["body.a]", "malformed segment"],
    [`body.${"a".repeat(600)}`, "at most 512"],
  ])("refuses %p", (text, message) => {
    expect(parseFieldPath(text)).toContain(message);
  });
});

describe("field paths: resolving", () => {
  test.each([
    ["body.a.b[1].c", { found: true, value: 2 }],
    ["body.a.b[2].c", { found: false }],
    ["body.a.b[*].c", { found: true, value: [1, 2] }],
    ["body.a.b[*].zz", { found: true, value: [] }],
    ["body.list[*]", { found: true, value: [10, 20] }],
    ["body.a[*]", { found: false }],
    ["body.nil", { found: true, value: null }],
    ["body.k-1", { found: true, value: "v" }],
    ["body.missing.deeper", { found: false }],
    ["headers.X-EVENT", { found: true, value: "push" }],
    ["query.q", { found: true, value: "1" }],
    ["path.rest", { found: true, value: "a/b" }],
  ])("%s", (text, expected) => {
    expect(resolveFieldPath(parsed(text), view)).toEqual(expected as never);
  });

  test("inherited properties are never found", () => {
    expect(resolveFieldPath(parsed("body.constructor"), view)).toEqual({ found: false });
    expect(resolveFieldPath(parsed("body.a.__proto__"), view)).toEqual({ found: false });
  });
});
