import { describe, expect, test } from "bun:test";
import type { RequestView } from "../shared/field-path.ts";
import {
  canonical,
  canonicalByParts,
  type DedupConfig,
  dedupKey,
  exclusionOf,
  keyMaterial,
  parseDedupConfig,
  sortKeys,
} from "./dedup.model.ts";

const view = (body: unknown, extra: Partial<RequestView> = {}): RequestView => ({
  body,
  headers: { "x-request-id": "r-1", "idempotency-key": "k-1" },
  query: { page: "1" },
  path: { rest: "orders" },
  ...extra,
});

const config = (strategy: Partial<DedupConfig>): DedupConfig => ({
  enabled: true,
  ttl_seconds: 300,
  ...strategy,
});

const key = (c: Partial<DedupConfig>, body: unknown, extra: Partial<RequestView> = {}) =>
  dedupKey(config(c), view(body, extra), JSON.stringify(body) ?? "");

// [what, strategy, first body, second body, same key?]
const pairs: Array<[string, Partial<DedupConfig>, unknown, unknown, boolean]> = [
  [
    "body_path: same id",
    { body_path: "body.id" },
    { id: "evt_1", n: 1 },
    { id: "evt_1", n: 2 },
    true,
  ],
  ["body_path: other id", { body_path: "body.id" }, { id: "evt_1" }, { id: "evt_2" }, false],
  ["body_path: '1' and 1 differ", { body_path: "body.id" }, { id: "1" }, { id: 1 }, false],
  ["body_path: missing and null differ", { body_path: "body.id" }, {}, { id: null }, false],
  [
    "body_path: missing and the string '!' differ",
    { body_path: "body.id" },
    {},
    { id: "!" },
    false,
  ],
  ["body_path: missing twice is the same", { body_path: "body.id" }, { a: 1 }, { b: 2 }, true],
  [
    "body_path: object key order ignored",
    { body_path: "body.o" },
    { o: { a: 1, b: 2 } },
    { o: { b: 2, a: 1 } },
    true,
  ],
  ["body_path: array order kept", { body_path: "body.l" }, { l: [1, 2] }, { l: [2, 1] }, false],
  [
    "body_path: [n]",
    { body_path: "body.items[0].id" },
    { items: [{ id: 1 }, { id: 2 }] },
    { items: [{ id: 1 }, { id: 3 }] },
    true,
  ],
  [
    "body_path: [*] combines all",
    { body_path: "body.items[*].id" },
    { items: [{ id: 1 }, { id: 2 }] },
    { items: [{ id: 1 }, { id: 3 }] },
    false,
  ],
  [
    "body_path: [*] same set",
    { body_path: "body.items[*].id" },
    { items: [{ id: 1, x: 1 }, { id: 2 }] },
    { items: [{ id: 1, x: 9 }, { id: 2 }] },
    true,
  ],
  [
    "body_path: unicode kept exactly",
    { body_path: "body.s" },
    { s: "caf\u00e9" },
    { s: "cafe\u0301" },
    false,
  ],
  [
    "body_path: 1.0 and 1 are the same JSON number",
    { body_path: "body.n" },
    { n: 1.0 },
    { n: 1 },
    true,
  ],
  [
    "body_path: nested 1 vs '1'",
    { body_path: "body.o" },
    { o: { a: 1 } },
    { o: { a: "1" } },
    false,
  ],
  [
    "include_fields: all listed equal",
    { include_fields: ["body.a", "body.b"] },
    { a: 1, b: 2, c: 3 },
    { a: 1, b: 2, c: 4 },
    true,
  ],
  [
    "include_fields: one differs",
    { include_fields: ["body.a", "body.b"] },
    { a: 1, b: 2 },
    { a: 1, b: 3 },
    false,
  ],
  [
    "include_fields: value moved between fields",
    { include_fields: ["body.a", "body.b"] },
    { a: 1 },
    { b: 1 },
    false,
  ],
  [
    "exclude_fields: only excluded differ",
    { exclude_fields: ["body.ts", "body.meta.sent_at"] },
    { id: 1, ts: 5, meta: { sent_at: 1, v: 2 } },
    { id: 1, ts: 6, meta: { sent_at: 2, v: 2 } },
    true,
  ],
  [
    "exclude_fields: a kept field differs",
    { exclude_fields: ["body.ts"] },
    { id: 1, ts: 5 },
    { id: 2, ts: 5 },
    false,
  ],
  [
    "exclude_fields: key order ignored",
    { exclude_fields: ["body.ts"] },
    { id: 1, x: 2, ts: 1 },
    { x: 2, ts: 2, id: 1 },
    true,
  ],
  [
    "exclude_fields: [*] removes from every element",
    { exclude_fields: ["body.items[*].at"] },
    {
      items: [
        { id: 1, at: 1 },
        { id: 2, at: 1 },
      ],
    },
    {
      items: [
        { id: 1, at: 2 },
        { id: 2, at: 3 },
      ],
    },
    true,
  ],
  [
    "exclude_fields: [n] removes one element's field",
    { exclude_fields: ["body.items[0].at"] },
    { items: [{ at: 1 }, { at: 1 }] },
    { items: [{ at: 2 }, { at: 2 }] },
    false,
  ],
  [
    "exclude_fields: a removed element",
    { exclude_fields: ["body.items[1]"] },
    { items: [1, 2] },
    { items: [1, 3] },
    true,
  ],
];

describe("dedup: which requests share a key", () => {
  for (const [what, strategy, first, second, same] of pairs) {
    test(what, () => {
      expect(key(strategy, first) === key(strategy, second)).toBe(same);
    });
  }

  test("headers are case-insensitive and query/path are addressable", () => {
    const byHeader = { include_fields: ["headers.Idempotency-Key", "query.page", "path.rest"] };
    const other = view({}, { headers: { "idempotency-key": "k-2" } });
    expect(key(byHeader, { a: 1 })).toBe(key(byHeader, { a: 2 }));
    expect(dedupKey(config(byHeader), other, "{}")).not.toBe(key(byHeader, { a: 1 }));
  });

  test("a body that is not JSON is keyed by its raw text under exclude_fields", () => {
    const c = config({ exclude_fields: ["body.ts"] });
    const text = (raw: string) => dedupKey(c, view(undefined), raw);
    expect(text("a=1")).toBe(text("a=1"));
    expect(text("a=1")).not.toBe(text("a=2"));
  });

  test("the key is a SHA-256 hex digest of the canonical material", () => {
    const c = config({ body_path: "body.id" });
    expect(dedupKey(c, view({ id: "x" }), "")).toMatch(/^[0-9a-f]{64}$/);
    expect(keyMaterial(c, view({ id: "x" }), "")).toBe('body_path\n"body.id"="x"');
    expect(keyMaterial(c, view({}), "")).toBe('body_path\n"body.id"!');
  });
});

describe("dedup: config validation", () => {
  test("defaults: enabled, 300 s", () => {
    expect(parseDedupConfig({ body_path: "body.id" })).toEqual({
      config: { enabled: true, ttl_seconds: 300, body_path: "body.id" },
    });
  });
  test("absent config is null", () => {
    expect(parseDedupConfig(undefined)).toEqual({ config: null });
  });
  test("enabled false keeps the settings", () => {
    expect(
      parseDedupConfig({ enabled: false, include_fields: ["body.a"], ttl_seconds: 60 }),
    ).toEqual({
      config: { enabled: false, ttl_seconds: 60, include_fields: ["body.a"] },
    });
  });

  // [what, input, the errors key it must name]
  const invalid: Array<[string, unknown, string]> = [
    ["not an object", [], "deduplication_config"],
    ["no strategy", { ttl_seconds: 5 }, "deduplication_config.body_path"],
    [
      "two strategies",
      { body_path: "body.a", include_fields: ["body.b"] },
      "deduplication_config.include_fields",
    ],
    ["ttl zero", { body_path: "body.a", ttl_seconds: 0 }, "deduplication_config.ttl_seconds"],
    ["ttl negative", { body_path: "body.a", ttl_seconds: -5 }, "deduplication_config.ttl_seconds"],
    ["ttl fraction", { body_path: "body.a", ttl_seconds: 1.5 }, "deduplication_config.ttl_seconds"],
    ["ttl string", { body_path: "body.a", ttl_seconds: "300" }, "deduplication_config.ttl_seconds"],
    ["enabled string", { body_path: "body.a", enabled: "yes" }, "deduplication_config.enabled"],
    ["bad body_path", { body_path: "bodyx.a" }, "deduplication_config.body_path"],
    ["body_path not a string", { body_path: 5 }, "deduplication_config.body_path"],
    ["empty include list", { include_fields: [] }, "deduplication_config.include_fields"],
    [
      "bad include path",
      { include_fields: ["body.a", "x"] },
      "deduplication_config.include_fields",
    ],
    [
      "exclude outside the body",
      { exclude_fields: ["headers.date"] },
      "deduplication_config.exclude_fields",
    ],
    [
      "too many fields",
      { include_fields: Array.from({ length: 51 }, (_, i) => `body.f${i}`) },
      "deduplication_config.include_fields",
    ],
    ["unknown field", { body_path: "body.a", window: 5 }, "deduplication_config.window"],
  ];
  for (const [what, input, field] of invalid) {
    test(`refuses ${what}`, () => {
      const result = parseDedupConfig(input);
      expect(result.errors && Object.keys(result.errors)).toEqual([field]);
    });
  }
});

test("canonical strings are exactly JSON's, escapes and unicode included", () => {
  const strings = [
    "plain",
    'quote " here',
    "back\\slash",
    "tab\tnew\nline\u0001",
    "é ü ß — 😀",
    "lone \ud800 surrogate",
    "",
  ];
  for (const text of strings) {
    expect(canonical(text)).toBe(JSON.stringify(text));
    expect(canonical({ [text]: text })).toBe(`{${JSON.stringify(text)}:${JSON.stringify(text)}}`);
  }
  expect(canonical([1.5, -0, 1e21, Number.NaN, null, true])).toBe("[1.5,0,1e+21,null,null,true]");
});

test("the sorted-copy canonical text equals the one written value by value, exclusions included", () => {
  const values: unknown[] = [
    { b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" }, é: true, "😀": null, A: -0 },
    { a: 1, b: { d: 1, c: 2 }, c: [{ y: 1, x: 2 }], d: "sorted, with unsorted children" },
    {
      id: "evt_1",
      items: [
        { sku: "a", seen: 1, qty: 2 },
        { seen: 2, sku: "b" },
      ],
      meta: {},
    },
    { "10": "a", "9": "b", x: 1 },
    { "1a": 1, a1: 2 },
    JSON.parse('{"__proto__": {"x": 1}, "a": 2}'),
    [[{ b: 1, a: 2 }], [], {}],
    { tab: "a\tb", lone: "\ud800", emoji: "😀", nested: { arr: [1.5, 1e21, null, false] } },
    "text",
    7,
    null,
    undefined,
  ];
  const exclusions = [
    [],
    ["body.a.c"],
    ["body.items[*].seen", "body.meta"],
    ["body.items[0].sku", "body.items[*].qty"],
    ["body.b", "body.a.d[1].z"],
    ["body.10", "body.__proto__.x"],
  ];
  for (const value of values) {
    expect(canonical(value)).toBe(canonicalByParts(value));
    for (const list of exclusions) {
      const tree = exclusionOf(list);
      expect(canonical(value, tree)).toBe(canonicalByParts(value, tree));
    }
  }
  // And the copy never changes the request's own body.
  const body = { b: { d: 1, c: 2 }, a: [{ y: 1, x: 2 }] };
  const before = JSON.stringify(body);
  canonical(body, exclusionOf(["body.b.d"]));
  expect(JSON.stringify(body)).toBe(before);
});

test("keys stored by an earlier version still match: the canonical text never changes", () => {
  // Digests taken before the canonical writer was last reworked. A change here would let every
  // live key of an upgraded server miss once, so its senders' retries would pass as new events.
  const body = {
    id: "evt_1",
    type: "order.updated",
    timestamp: 1,
    meta: { delivery_id: "d", attempt: 1 },
    items: [
      { sku: "a", seen_at: 1, qty: 2 },
      { seen_at: 2, sku: "b" },
    ],
    "10": "ten",
    "9": "nine",
    é: "ü😀",
    total: 1.5e21,
  };
  const request: RequestView = { body, headers: { "x-id": "7" }, query: { q: "1" }, path: {} };
  const golden: [Partial<DedupConfig>, unknown, string][] = [
    [
      { exclude_fields: ["body.timestamp", "body.meta.delivery_id", "body.items[*].seen_at"] },
      body,
      "ce7ef69ee6a5d6b4f1b4779fd7267592b43ab2286b3a6947483472948d4c8522",
    ],
    [
      { exclude_fields: ["body.items[0].sku", "body.items[*].qty"] },
      body,
      "3a363b385357bcd09a99c7cf381968860e44cd5fc06194d4c6f95d2ba18006cd",
    ],
    [
      { include_fields: ["body.meta", "headers.X-Id", "query.q", "body.missing"] },
      body,
      "4d8e957a1945ff5b8c2a644542f1cd26476e4e9af43c1d1884d6f33e98f15b93",
    ],
    [
      { body_path: "body.items[*].sku" },
      body,
      "1c40feddfcf0a8a6053fc736274912812a97fde5033c144f0650c79f47f70f75",
    ],
    [
      { exclude_fields: ["body.a.c"] },
      { b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" } },
      "ef06f7e7619e377fa94eaf1a3d317c9d357294418d8f70f19b0d561a0b249fbd",
    ],
  ];
  for (const [strategy, value, digest] of golden) {
    expect(dedupKey(config(strategy), { ...request, body: value }, "")).toBe(digest);
  }
});

test("keys sort as the default sort does, short lists and long, surrogates included", () => {
  const alphabet = ["a", "B", "é", "😀", "\ud800", "1", "10", "_", "", "Z", "ab", "a b"];
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed;
  };
  for (let length = 0; length <= 70; length++) {
    const keys = Array.from({ length }, () => {
      const parts = Array.from(
        { length: 1 + (next() % 3) },
        () => alphabet[next() % alphabet.length],
      );
      return parts.join("");
    });
    expect(sortKeys([...keys])).toEqual([...keys].sort());
  }
});
