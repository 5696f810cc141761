import { describe, expect, test } from "bun:test";
import type { RequestView } from "../shared/field-path.ts";
import {
  compileFilterExplainer,
  compileFilters,
  FILTER_LIMITS,
  FilterBudgetExceeded,
  meterOf,
  validateFilters,
} from "./filters.model.ts";

const request: RequestView = {
  body: {
    type: "push",
    amount: 42,
    price: "5",
    ratio: 0.5,
    tags: ["a", "b", "urgent"],
    counts: [1, 5, 9],
    items: [
      { id: 1, sku: "x-1", qty: 2, meta: { color: "red" } },
      { id: 2, sku: "y-2", qty: 0 },
    ],
    user: { name: "Ada", address: { city: "Paris", zip: "75001" }, roles: ["admin", "dev"] },
    grid: [[1, 2], [3]],
    nil: null,
    flag: false,
    empty: {},
    ref: "refs/heads/main",
    "caf\u00e9": "cr\u00e8me",
  },
  headers: { "x-github-event": "push", "content-type": "application/json" },
  query: { token: "abc", page: "2" },
  path: { source: "github", rest: "hooks/push" },
};

const matches = (filters: unknown, view: RequestView = request) => compileFilters(filters)(view);

// [what, filters, expected]: each row is one filter list evaluated against `request`.
const table: Array<[string, unknown, boolean]> = [
  // no filter at all
  ["an empty list passes", [], true],
  ["null filters pass", null, true],
  // scalar equality, strict
  ["scalar equality", [{ "body.type": "push" }], true],
  ["scalar inequality", [{ "body.type": "pull" }], false],
  ["strict: '5' is not 5", [{ "body.price": 5 }], false],
  ["strict: 42 is not '42'", [{ "body.amount": "42" }], false],
  ["null equals null", [{ "body.nil": null }], true],
  ["false equals false", [{ "body.flag": false }], true],
  ["false is not null", [{ "body.flag": null }], false],
  ["unicode keys and values", [{ "body.caf\u00e9": "cr\u00e8me" }], true],
  // missing fields
  ["missing field fails equality", [{ "body.nope": "x" }], false],
  ["missing field fails $neq", [{ "body.nope": { $neq: "x" } }], false],
  ["missing field passes $exist:false", [{ "body.nope": { $exist: false } }], true],
  ["present field fails $exist:false", [{ "body.type": { $exist: false } }], false],
  ["present field passes $exist:true", [{ "body.type": { $exist: true } }], true],
  ["null counts as present", [{ "body.nil": { $exist: true } }], true],
  ["missing passes $not $eq", [{ "body.nope": { $not: { $eq: 1 } } }], true],
  ["missing nested field fails", [{ "body.user.phone": "1" }], false],
  ["path through a scalar is missing", [{ "body.type.length": { $exist: false } }], true],
  // paths
  ["nested dots", [{ "body.user.address.city": "Paris" }], true],
  ["index", [{ "body.items[1].sku": "y-2" }], true],
  ["index out of range is missing", [{ "body.items[5].sku": { $exist: false } }], true],
  ["index of an index", [{ "body.grid[0][1]": 2 }], true],
  ["wildcard: any element", [{ "body.items[*].sku": "x-1" }], true],
  ["wildcard: none", [{ "body.items[*].sku": "z-9" }], false],
  ["wildcard with operator", [{ "body.items[*].qty": { $gt: 1 } }], true],
  ["wildcard skips elements without the field", [{ "body.items[*].meta.color": "red" }], true],
  ["wildcard over nested arrays", [{ "body.grid[*][*]": 3 }], true],
  ["headers are case-insensitive", [{ "headers.X-GitHub-Event": "push" }], true],
  ["headers lowercase too", [{ "headers.content-type": { $startsWith: "application/" } }], true],
  ["query parameter", [{ "query.page": "2" }], true],
  ["path parameter", [{ "path.source": "github" }], true],
  // partial objects
  ["partial object match", [{ "body.user": { name: "Ada" } }], true],
  ["deep partial object", [{ "body.user": { address: { city: "Paris" } } }], true],
  ["partial object mismatch", [{ "body.user": { name: "Bob" } }], false],
  ["partial object with operator inside", [{ "body.user": { name: { $startsWith: "A" } } }], true],
  ["partial object missing key fails", [{ "body.user": { phone: "1" } }], false],
  [
    "partial object with $exist:false inside",
    [{ "body.user": { phone: { $exist: false } } }],
    true,
  ],
  ["{} matches any present object", [{ "body.empty": {} }], true],
  ["{} matches a non-empty object", [{ "body.user": {} }], true],
  ["{} does not match a scalar", [{ "body.type": {} }], false],
  ["{} does not match a missing field", [{ "body.nope": {} }], false],
  ["partial object against an array of objects: any", [{ "body.items": { sku: "y-2" } }], true],
  // arrays: scalars/operators match any element; arrays require every item
  ["scalar against array: any element", [{ "body.tags": "urgent" }], true],
  ["scalar against array: absent", [{ "body.tags": "zzz" }], false],
  ["array requires every item", [{ "body.tags": ["a", "urgent"] }], true],
  ["array with a missing item fails", [{ "body.tags": ["a", "zzz"] }], false],
  ["array against a scalar field fails", [{ "body.type": ["push"] }], false],
  ["array of partial objects", [{ "body.items": [{ id: 2 }, { sku: "x-1" }] }], true],
  ["$neq against array: no element", [{ "body.tags": { $neq: "a" } }], false],
  ["$neq against array: none equal", [{ "body.tags": { $neq: "q" } }], true],
  ["$not against array: no element equals", [{ "body.counts": { $not: { $eq: 5 } } }], false],
  ["$not against array: none", [{ "body.counts": { $not: { $eq: 6 } } }], true],
  ["$gt against array: any", [{ "body.counts": { $gt: 8 } }], true],
  ["$lt against array: none", [{ "body.counts": { $lt: 1 } }], false],
  // $eq / $neq with structured operands compare whole values
  ["$eq scalar", [{ "body.amount": { $eq: 42 } }], true],
  ["$eq array deep", [{ "body.tags": { $eq: ["a", "b", "urgent"] } }], true],
  ["$eq array order matters", [{ "body.tags": { $eq: ["b", "a", "urgent"] } }], false],
  ["$eq array is not partial", [{ "body.tags": { $eq: ["a"] } }], false],
  [
    "$eq object deep, key order ignored",
    [{ "body.user.address": { $eq: { zip: "75001", city: "Paris" } } }],
    true,
  ],
  ["$eq object is not partial", [{ "body.user.address": { $eq: { city: "Paris" } } }], false],
  ["$neq object", [{ "body.user.address": { $neq: { city: "Paris" } } }], true],
  ["$neq scalar", [{ "body.type": { $neq: "pull" } }], true],
  ["$neq scalar equal", [{ "body.type": { $neq: "push" } }], false],
  // $in / $nin
  ["$in array", [{ "body.type": { $in: ["push", "pull"] } }], true],
  ["$in array absent", [{ "body.type": { $in: ["pull"] } }], false],
  ["$in is strict", [{ "body.amount": { $in: ["42"] } }], false],
  ["$in string operand: substring", [{ "body.ref": { $in: "heads" } }], true],
  ["$in string operand: no substring", [{ "body.ref": { $in: "tags" } }], false],
  ["$in against array field: any element", [{ "body.tags": { $in: ["x", "b"] } }], true],
  ["$nin array", [{ "body.type": { $nin: ["pull"] } }], true],
  ["$nin array present", [{ "body.type": { $nin: ["push"] } }], false],
  ["$nin string operand", [{ "body.ref": { $nin: "tags/" } }], true],
  ["$nin against array field: no element", [{ "body.tags": { $nin: ["b"] } }], false],
  ["$nin on a missing field fails", [{ "body.nope": { $nin: ["b"] } }], false],
  // ordering
  ["$gt number", [{ "body.amount": { $gt: 41 } }], true],
  ["$gt equal is false", [{ "body.amount": { $gt: 42 } }], false],
  ["$gte equal", [{ "body.amount": { $gte: 42 } }], true],
  ["$lt", [{ "body.ratio": { $lt: 1 } }], true],
  ["$lte", [{ "body.amount": { $lte: 41 } }], false],
  ["$gt on strings by code point", [{ "body.type": { $gt: "pull" } }], true],
  ["$gt type mismatch is a no-match", [{ "body.price": { $gt: 1 } }], false],
  ["$lt number against a string field", [{ "body.type": { $lt: 1000 } }], false],
  ["several operators are ANDed", [{ "body.amount": { $gt: 10, $lt: 50 } }], true],
  ["several operators, one fails", [{ "body.amount": { $gt: 10, $lt: 20 } }], false],
  // strings
  ["$startsWith", [{ "body.ref": { $startsWith: "refs/heads/" } }], true],
  ["$startsWith any of", [{ "body.ref": { $startsWith: ["refs/tags/", "refs/heads/"] } }], true],
  ["$startsWith none", [{ "body.ref": { $startsWith: "refs/tags/" } }], false],
  ["$endsWith", [{ "body.ref": { $endsWith: "/main" } }], true],
  ["$endsWith any of", [{ "body.ref": { $endsWith: ["/dev", "/x"] } }], false],
  [
    "$startsWith against an object field is a no-match",
    [{ "body.user": { $startsWith: "A" } }],
    false,
  ],
  ["$contains substring", [{ "body.ref": { $contains: "heads" } }], true],
  ["$contains substring absent", [{ "body.ref": { $contains: "tags" } }], false],
  ["$contains element of an array", [{ "body.tags": { $contains: "urgent" } }], true],
  ["$contains number element", [{ "body.counts": { $contains: 9 } }], true],
  ["$regex", [{ "body.ref": { $regex: "^refs/heads/(main|master)$" } }], true],
  ["$regex no match", [{ "body.ref": { $regex: "^refs/tags/" } }], false],
  ["$regex case-insensitive flag", [{ "body.user.name": { $regex: "(?i)^ada$" } }], true],
  ["$regex against a number is a no-match", [{ "body.amount": { $regex: "4" } }], false],
  ["$regex against array: any", [{ "body.tags": { $regex: "^urg" } }], true],
  // combinators under a path
  ["$or under a path", [{ "body.amount": { $or: [{ $lt: 10 }, { $gt: 40 }] } }], true],
  ["$or under a path, none", [{ "body.amount": { $or: [{ $lt: 10 }, { $gt: 1000 }] } }], false],
  ["$or with scalars means equality", [{ "body.type": { $or: ["pull", "push"] } }], true],
  ["$and under a path", [{ "body.amount": { $and: [{ $gt: 40 }, { $lt: 43 }] } }], true],
  ["$and under a path, one fails", [{ "body.amount": { $and: [{ $gt: 40 }, 41] } }], false],
  ["$not", [{ "body.type": { $not: { $eq: "pull" } } }], true],
  ["$not of a match", [{ "body.type": { $not: { $in: ["push"] } } }], false],
  ["$not of $exist", [{ "body.nope": { $not: { $exist: true } } }], true],
  // root combinators and several filter objects
  ["root $or", [{ $or: [{ "body.type": "pull" }, { "headers.x-github-event": "push" }] }], true],
  ["root $or, none", [{ $or: [{ "body.type": "pull" }, { "query.page": "3" }] }], false],
  ["root $and", [{ $and: [{ "body.type": "push" }, { "query.page": "2" }] }], true],
  ["root $not", [{ $not: { "body.type": "pull" } }], true],
  ["root $not of a match", [{ $not: { "body.type": "push", "query.page": "2" } }], false],
  ["paths in one object are ANDed", [{ "body.type": "push", "query.page": "2" }], true],
  ["paths in one object, one fails", [{ "body.type": "push", "query.page": "9" }], false],
  ["every filter object must match", [{ "body.type": "push" }, { "body.amount": 42 }], true],
  ["one filter object fails the list", [{ "body.type": "push" }, { "body.amount": 1 }], false],
  ["root path is the whole part", [{ query: { token: "abc" } }], true],
];

describe("filters: evaluation table", () => {
  for (const [what, filters, expected] of table) {
    test(what, () => {
      expect(validateFilters(filters)).toEqual({});
      expect(matches(filters)).toBe(expected);
    });
  }
});

describe("filters: bodies that are not JSON", () => {
  const textRequest: RequestView = { ...request, body: undefined };
  test("a body. path finds nothing in a non-JSON body", () => {
    expect(matches([{ "body.type": "push" }], textRequest)).toBe(false);
    expect(matches([{ "body.type": { $exist: false } }], textRequest)).toBe(true);
  });
  test("headers still match", () => {
    expect(matches([{ "headers.x-github-event": "push" }], textRequest)).toBe(true);
  });
});

// [what, filters, the errors key it must name]
const invalid: Array<[string, unknown, string]> = [
  ["not an array", { "body.x": 1 }, "filters"],
  ["an item that is not an object", ["body.x"], "filters[0]"],
  ["an unknown root", [{ "bodyx.a": 1 }], "filters[0].bodyx.a"],
  ["an empty path segment", [{ "body..a": 1 }], "filters[0].body..a"],
  ["an unknown operator", [{ "body.a": { $like: "x" } }], "filters[0].body.a.$like"],
  ["a bad regex", [{ "body.a": { $regex: "(unclosed" } }], "filters[0].body.a.$regex"],
  [
    "a backreference (not linear-time)",
    [{ "body.a": { $regex: "(a)\\1" } }],
    "filters[0].body.a.$regex",
  ],
  ["a regex that is not a string", [{ "body.a": { $regex: 5 } }], "filters[0].body.a.$regex"],
  ["$gt with an object", [{ "body.a": { $gt: { x: 1 } } }], "filters[0].body.a.$gt"],
  ["$lte with a boolean", [{ "body.a": { $lte: true } }], "filters[0].body.a.$lte"],
  ["$in with a number", [{ "body.a": { $in: 5 } }], "filters[0].body.a.$in"],
  ["$nin with objects", [{ "body.a": { $nin: [{ x: 1 }] } }], "filters[0].body.a.$nin"],
  ["$exist with a string", [{ "body.a": { $exist: "yes" } }], "filters[0].body.a.$exist"],
  [
    "$startsWith with a number",
    [{ "body.a": { $startsWith: 1 } }],
    "filters[0].body.a.$startsWith",
  ],
  [
    "$endsWith with an empty array",
    [{ "body.a": { $endsWith: [] } }],
    "filters[0].body.a.$endsWith",
  ],
  ["$contains with an object", [{ "body.a": { $contains: {} } }], "filters[0].body.a.$contains"],
  ["$or with no items", [{ "body.a": { $or: [] } }], "filters[0].body.a.$or"],
  ["$and with an object", [{ "body.a": { $and: { $eq: 1 } } }], "filters[0].body.a.$and"],
  ["$not with a scalar", [{ "body.a": { $not: 1 } }], "filters[0].body.a.$not"],
  [
    "a bad operand deep in $or",
    [{ "body.a": { $or: [{ $gt: [] }] } }],
    "filters[0].body.a.$or[0].$gt",
  ],
  ["operators mixed with fields", [{ "body.a": { $eq: 1, b: 2 } }], "filters[0].body.a"],
  ["a root operator other than $or/$and/$not", [{ $eq: 1 }], "filters[0].$eq"],
  ["root $or of non-objects", [{ $or: ["x"] }], "filters[0].$or[0]"],
];

describe("filters: what is refused when saved (422 naming the field)", () => {
  for (const [what, filters, key] of invalid) {
    test(what, () => {
      const errors = validateFilters(filters);
      expect(Object.keys(errors)).toEqual([key]);
      expect(key.startsWith("filters")).toBe(true);
      expect(() => compileFilters(filters)).toThrow();
    });
  }

  test("too many terms", () => {
    const wide = [Object.fromEntries(Array.from({ length: 1200 }, (_, i) => [`body.f${i}`, i]))];
    expect(Object.keys(validateFilters(wide))).toEqual(["filters[0].body.f999"]);
  });

  test("filters whose regexes take longer than the limit to compile", () => {
    const slow = Array.from({ length: 20 }, (_, i) => ({ $regex: `a{1,1000}b${i}` }));
    const filters = [{ "body.a": { $or: slow } }];
    const errors = validateFilters(filters, { maxTerms: 1000, compileMs: 1 });
    expect(Object.values(errors).flat()[0]).toContain("takes too long to compile");
    expect(validateFilters(filters, { maxTerms: 1000, compileMs: 60_000 })).toEqual({});
  });

  test("nesting too deep", () => {
    let expression: unknown = { $eq: 1 };
    for (let i = 0; i < FILTER_LIMITS.depth + 2; i++) expression = { $not: expression };
    const errors = validateFilters([{ "body.a": expression }]);
    expect(Object.values(errors).flat()[0]).toContain("nests deeper");
  });
});

describe("filters: $regex cannot hang the process", () => {
  test("a catastrophic pattern on a long subject finishes (linear-time engine)", () => {
    const view: RequestView = { ...request, body: { s: `${"a".repeat(20_000)}!` } };
    const started = performance.now();
    expect(matches([{ "body.s": { $regex: "^(a+)+$" } }], view)).toBe(false);
    // A backtracking engine takes longer than the age of the universe here; RE2 is linear.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe("why a request was rejected", () => {
  const explain = (filters: unknown, view: RequestView = request) =>
    compileFilterExplainer(filters)(view);

  test("the first failing term: its filter object and the path as written", () => {
    expect(explain([{ "body.type": "push" }, { "body.amount": { $gt: 100 } }])).toEqual({
      filter: 1,
      path: "body.amount",
    });
    expect(explain([{ "headers.x-github-event": "push", "body.user.name": "Bob" }])).toEqual({
      filter: 0,
      path: "body.user.name",
    });
    expect(explain([{ "body.missing": { $exist: true } }])).toEqual({
      filter: 0,
      path: "body.missing",
    });
  });

  test("a root combinator is named by its operator", () => {
    expect(explain([{ $or: [{ "body.type": "pull" }, { "body.amount": 1 }] }])).toEqual({
      filter: 0,
      path: "$or",
    });
    expect(explain([{ $not: { "body.type": "push" } }])).toEqual({ filter: 0, path: "$not" });
  });

  test("null when the request passes, as compileFilters says", () => {
    for (const filters of [undefined, [], [{}], [{ "body.type": "push" }, { "query.page": "2" }]]) {
      expect(explain(filters)).toBeNull();
      expect(compileFilters(filters)(request)).toBe(true);
    }
  });
});

describe("filters: the budget counts terms × array elements", () => {
  const items = Array.from({ length: 1000 }, (_, i) => `v${i}`);
  const view: RequestView = { ...request, body: { items, rows: items.map((id) => ({ id })) } };
  const run = (filters: unknown, left: number) => {
    const meter = meterOf(left);
    try {
      return { matched: compileFilters(filters, meter)(view), left: meter.left };
    } catch (error) {
      return { thrown: error instanceof FilterBudgetExceeded };
    }
  };

  test("each element an operator tests is one comparison", () => {
    expect(run([{ "body.items": { $eq: "none" } }], 1000)).toEqual({ matched: false, left: 0 });
    expect(run([{ "body.items": { $eq: "none" } }], 999)).toEqual({ thrown: true });
  });

  test("several terms over one array add up; a [*] walk is paid too", () => {
    const three = [{ "body.items": { $or: [{ $eq: "x" }, { $eq: "y" }, { $eq: "z" }] } }];
    expect(run(three, 2999)).toEqual({ thrown: true });
    expect(run([{ "body.rows[*].id": "none" }], 1999)).toEqual({ thrown: true });
    expect(run([{ "body.rows[*].id": "none" }], 2000)).toEqual({ matched: false, left: 0 });
  });

  test("a $regex search is charged by the text it searches", () => {
    const long: RequestView = { ...request, body: { s: "a".repeat(10_000) } };
    const meter = meterOf(5000);
    expect(() => compileFilters([{ "body.s": { $regex: "b" } }], meter)(long)).toThrow(
      FilterBudgetExceeded,
    );
  });

  test("a substring search is charged by the text it searches", () => {
    const long: RequestView = { ...request, body: { s: "a".repeat(128 * 1000) } };
    const contains = [{ "body.s": { $contains: "b" } }];
    expect(() => compileFilters(contains, meterOf(1000))(long)).toThrow(FilterBudgetExceeded);
    const meter = meterOf(1001);
    expect(compileFilters(contains, meter)(long)).toBe(false);
    expect(meter.left).toBe(0);
  });

  test("past its time the meter runs out too, the clock read once per 16,384 comparisons", () => {
    const expired = () => meterOf(1_000_000_000, -1);
    const eqNone = [{ "body.items": { $eq: "none" } }];
    expect(compileFilters(eqNone, expired())(view)).toBe(false); // 1,000: the clock is not read
    const wide: RequestView = { ...request, body: { items: Array(20_000).fill("x") } };
    expect(() => compileFilters(eqNone, expired())(wide)).toThrow(FilterBudgetExceeded);
  });

  test("$in with a long list stays one lookup per element", () => {
    const list = Array.from({ length: 10_000 }, (_, i) => `w${i}`);
    expect(run([{ "body.items": { $in: list } }], 1000)).toEqual({ matched: false, left: 0 });
  });
});
