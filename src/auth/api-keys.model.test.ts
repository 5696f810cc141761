import { expect, test } from "bun:test";
import { allowlistMatcher, normalizeCidr, parseApiKeyLimits, usageDays } from "./api-keys.model.ts";

test.each([
  ["10.0.0.0/8", "10.0.0.0/8"],
  [" 192.0.2.7 ", "192.0.2.7/32"],
  ["2001:db8::/32", "2001:db8::/32"],
  ["::1", "::1/128"],
  ["10.0.0.0/33", null],
  ["2001:db8::/129", null],
  ["10.0.0.0/8/1", null],
  ["10.0.0/8", null],
  ["example.com", null],
  [42, null],
])("normalizeCidr(%j) → %j", (raw, expected) => {
  expect(normalizeCidr(raw)).toBe(expected);
});

test("an allowlist matches IPv4 and IPv6 ranges and fails closed on an unknown address", () => {
  const allowed = allowlistMatcher(["192.168.1.0/24", "2001:db8::/32"]);
  expect(allowed("192.168.1.40")).toBe(true);
  expect(allowed("192.168.2.1")).toBe(false);
  expect(allowed("2001:db8:1::5")).toBe(true);
  expect(allowed("2001:db9::1")).toBe(false);
  expect(allowed(null)).toBe(false);
  expect(allowed("not an address")).toBe(false);
});

test("limits default to today's owner key; duplicates in the allowlist are kept once", () => {
  expect(parseApiKeyLimits({}, 0)).toEqual({
    limits: { role: "owner", expiresAt: null, rateLimitPerMinute: null, allowedIps: null },
    errors: {},
  });
  const { limits } = parseApiKeyLimits({ allowed_ips: ["10.0.0.1", "10.0.0.1/32"] }, 0);
  expect(limits.allowedIps).toEqual(["10.0.0.1/32"]);
});

test("usage covers 30 days ending today, zeros where nothing was counted", () => {
  const now = Date.UTC(2026, 2, 1, 10);
  const days = usageDays(new Map([["2026-02-28", { requests: 4, errors: 1 }]]), now);
  expect(days).toHaveLength(30);
  expect(days[0]?.date).toBe("2026-01-31");
  expect(days.at(-1)).toEqual({ date: "2026-03-01", requests: 0, errors: 0 });
  expect(days.at(-2)).toEqual({ date: "2026-02-28", requests: 4, errors: 1 });
});
