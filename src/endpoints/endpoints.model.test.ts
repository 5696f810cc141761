import { describe, expect, test } from "bun:test";
import { AppError } from "../shared/errors.ts";
import { generatedSlug, slugProblem, slugStem, webhookUrl } from "./endpoints.model.ts";
import { validateCreate, validateUpdate } from "./endpoints.validate.ts";

/** The `errors` of the 422 a call throws, or null when it does not throw. */
function fieldErrors(call: () => unknown): Record<string, string[]> | null {
  try {
    call();
    return null;
  } catch (error) {
    if (!(error instanceof AppError) || error.status !== 422) throw error;
    return error.details.errors as Record<string, string[]>;
  }
}

describe("slug rules (decisions.md §4)", () => {
  test.each([
    ["abc", true],
    ["my-hooks-2", true],
    ["a".repeat(63), true],
    ["ab", false],
    ["a".repeat(64), false],
    ["Abc", false],
    ["-abc", false],
    ["abc-", false],
    ["a--b", false],
    ["a_b", false],
    ["ab c", false],
    ["été", false],
  ])("%p acceptable: %p", (slug, ok) => {
    expect(slugProblem(slug) === null).toBe(ok);
  });

  test.each([
    ["My Hooks!", "my-hooks"],
    ["  Stripe — Prod  ", "stripe-prod"],
    ["Café Déjà vu", "cafe-deja-vu"],
    ["!!!", "endpoint"],
    ["", "endpoint"],
    ["x".repeat(80), "x".repeat(40)],
    [`${"a".repeat(39)} b`, "a".repeat(39)],
  ])("stem of %p is %p", (name, stem) => {
    expect(slugStem(name)).toBe(stem);
  });

  test("generated slugs are valid: stem plus the lowercased random suffix", () => {
    expect(generatedSlug("My Hooks", "Ab3XyZ09")).toBe("my-hooks-ab3xyz09");
    for (const name of ["a", "!!!", "x".repeat(300), "Ünïcödé", "12"]) {
      expect(slugProblem(generatedSlug(name, "QwErTy12"))).toBeNull();
    }
  });

  test("capture URLs per family", () => {
    expect(webhookUrl("https://h.example/", "debug", "abc")).toBe("https://h.example/debug/abc");
    expect(webhookUrl("https://h.example", "w", "abc")).toBe("https://h.example/w/abc");
  });
});

describe("create input", () => {
  test("a wrapped minimal body is accepted with defaults", () => {
    expect(validateCreate({ debug_endpoint: { name: " Hooks " } })).toEqual({
      name: "Hooks",
      slug: null,
      response: null,
      forwardUrl: null,
      verification: null,
    });
  });

  test("an unwrapped body is read as the fields themselves", () => {
    expect(validateCreate({ name: "Hooks", slug: "my-slug" }).slug).toBe("my-slug");
  });

  test("a full body with response and forward_url", () => {
    const input = validateCreate({
      debug_endpoint: {
        name: "n",
        slug: "abc",
        response: { status: 202, headers: { "X-A": "1" }, body: "ok", delay_ms: 30_000 },
        forward_url: "https://example.com/in?x=1",
      },
    });
    expect(input.response).toEqual({
      status: 202,
      headers: { "X-A": "1" },
      body: "ok",
      delayMs: 30_000,
    });
    expect(input.forwardUrl).toBe("https://example.com/in?x=1");
  });

  test("response members default to 200, no headers, empty body, no delay", () => {
    expect(validateCreate({ debug_endpoint: { name: "n", response: {} } }).response).toEqual({
      status: 200,
      headers: {},
      body: "",
      delayMs: 0,
    });
  });

  test.each([
    [{}, ["name"]],
    [{ debug_endpoint: {} }, ["name"]],
    [{ debug_endpoint: { name: "" } }, ["name"]],
    [{ debug_endpoint: { name: "   " } }, ["name"]],
    [{ debug_endpoint: { name: 5 } }, ["name"]],
    [{ debug_endpoint: { name: "x".repeat(256) } }, ["name"]],
    [{ debug_endpoint: "text" }, ["debug_endpoint", "name"]],
    [{ debug_endpoint: { name: "n", slug: "Bad Slug" } }, ["slug"]],
    [{ debug_endpoint: { name: "n", slug: "ab" } }, ["slug"]],
    [{ debug_endpoint: { name: "n", slug: 12 } }, ["slug"]],
    [{ debug_endpoint: { name: "n", response: "x" } }, ["response"]],
    [{ debug_endpoint: { name: "n", response: { status: 99 } } }, ["response.status"]],
    [{ debug_endpoint: { name: "n", response: { status: 600 } } }, ["response.status"]],
    [{ debug_endpoint: { name: "n", response: { status: 200.5 } } }, ["response.status"]],
    [{ debug_endpoint: { name: "n", response: { delay_ms: 30_001 } } }, ["response.delay_ms"]],
    [{ debug_endpoint: { name: "n", response: { delay_ms: -1 } } }, ["response.delay_ms"]],
    [{ debug_endpoint: { name: "n", response: { body: 1 } } }, ["response.body"]],
    [{ debug_endpoint: { name: "n", response: { headers: [] } } }, ["response.headers"]],
    [{ debug_endpoint: { name: "n", response: { headers: { a: 1 } } } }, ["response.headers"]],
    [
      { debug_endpoint: { name: "n", response: { headers: { "a b": "1" } } } },
      ["response.headers"],
    ],
    [
      { debug_endpoint: { name: "n", response: { headers: { a: "1\r\nb: 2" } } } },
      ["response.headers"],
    ],
    [
      { debug_endpoint: { name: "n", response: { headers: { "Content-Length": "1" } } } },
      ["response.headers"],
    ],
    [{ debug_endpoint: { name: "n", forward_url: "ftp://x.example" } }, ["forward_url"]],
    [{ debug_endpoint: { name: "n", forward_url: "/relative" } }, ["forward_url"]],
    [{ debug_endpoint: { name: "n", forward_url: 7 } }, ["forward_url"]],
    [
      { debug_endpoint: { slug: "A", response: { status: 1 } } },
      ["name", "response.status", "slug"],
    ],
  ])("%j → 422 naming %p", (body, fields) => {
    expect(Object.keys(fieldErrors(() => validateCreate(body)) ?? {}).sort()).toEqual(fields);
  });
});

describe("update input", () => {
  test("absent members stay absent; null clears response and forward_url", () => {
    expect(validateUpdate({ debug_endpoint: { status: "paused" } })).toEqual({
      name: undefined,
      status: "paused",
      response: undefined,
      forwardUrl: undefined,
    });
    const cleared = validateUpdate({ debug_endpoint: { response: null, forward_url: null } });
    expect(cleared.response).toBeNull();
    expect(cleared.forwardUrl).toBeNull();
  });

  test("a slug is carried for the service to compare with the current one", () => {
    expect(validateUpdate({ debug_endpoint: { slug: "same-slug" } }).slug).toBe("same-slug");
  });

  test.each([
    [{ debug_endpoint: { status: "deleted" } }, ["status"]],
    [{ debug_endpoint: { name: "" } }, ["name"]],
    [{ debug_endpoint: { slug: 3 } }, ["slug"]],
    [{ debug_endpoint: { response: { delay_ms: 40_000 } } }, ["response.delay_ms"]],
  ])("%j → 422 naming %p", (body, fields) => {
    expect(Object.keys(fieldErrors(() => validateUpdate(body)) ?? {}).sort()).toEqual(fields);
  });
});
