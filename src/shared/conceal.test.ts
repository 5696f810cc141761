import { describe, expect, test } from "bun:test";
import { type Concealment, concealCutTail, concealer } from "./conceal.ts";
import { secretConcealments } from "./secret-template.ts";

test("a secret is hidden as written, percent-encoded and whatever its case; the longest wins", () => {
  const conceal = concealer([
    ["Hooks.Internal.Example", "{{HOST}}"],
    ["a b/c", "{{PATH}}"],
    ["Hooks.Internal", "{{SHORTER}}"],
  ]);
  expect(conceal("http://hooks.internal.example/x/a%20b%2Fc")).toBe("http://{{HOST}}/x/{{PATH}}");
  expect(conceal("getaddrinfo ENOTFOUND hooks.internal.example")).toBe(
    "getaddrinfo ENOTFOUND {{HOST}}",
  );
});

test("a secret that is a whole URL also hides its host, which a connect error quotes alone", () => {
  const conceal = concealer([["https://user:pw@private.example:8443/in?k=v", "{{HOOK_URL}}"]]);
  expect(conceal("connect ECONNREFUSED private.example:8443")).toBe("connect ECONNREFUSED ***");
  expect(conceal("https://user:pw@private.example:8443/in?k=v")).toBe("{{HOOK_URL}}");
});

test("values under four characters are left alone; no concealment leaves the text as it is", () => {
  expect(concealer([["abc", "{{X}}"]])("abc")).toBe("abc");
  expect(concealer([])("anything")).toBe("anything");
});

test("the secrets a destination's settings name, each shown as its {{NAME}}", () => {
  const values: Record<string, string> = { TOKEN: "t0k3n-value", HOST: "h.example" };
  const pairs = secretConcealments(
    ["http://{{HOST}}/x", null, "Bearer {{ TOKEN }}", "{{UNKNOWN}}"],
    (name) => values[name],
  );
  expect(pairs).toEqual([
    ["h.example", "{{HOST}}"],
    ["t0k3n-value", "{{TOKEN}}"],
  ]);
});

describe("concealCutTail", () => {
  const token: Concealment[] = [["s3cr3t-token-value", "{{TOKEN}}"]];
  test("masks the start of a secret that a cut left at the end, in any case", () => {
    expect(concealCutTail("answer: s3cr3t-to", token)).toBe("answer: ***");
    expect(concealCutTail("answer: S3CR3T-TO", token)).toBe("answer: ***");
    expect(concealCutTail("answer: s3cr3t-to%2F", [["s3cr3t-to/ken", "x"]])).toBe("answer: ***");
  });
  test("leaves a text that ends otherwise, or with one character of a secret", () => {
    expect(concealCutTail("answer: done", token)).toBe("answer: done");
    expect(concealCutTail("answer: s", token)).toBe("answer: s");
    expect(concealCutTail("answer: ss3cr3t", token)).toBe("answer: s***");
  });
  test("a long secret against a long answer stays cheap", () => {
    const long = "a".repeat(60_000);
    const started = performance.now();
    expect(concealCutTail(`${"a".repeat(65_535)}`, [[`${long}b`, "x"]])).toBe(
      `${"a".repeat(5_535)}***`,
    );
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

test("a secret echoed inside a JSON string is hidden, slashes escaped or not", () => {
  const conceal = concealer([['a/b"c\\d', "{{TOKEN}}"]]);
  expect(conceal('{"t":"a/b\\"c\\\\d"}')).toBe('{"t":"{{TOKEN}}"}');
  expect(conceal('{"t":"a\\/b\\"c\\\\d"}')).toBe('{"t":"{{TOKEN}}"}');
});
