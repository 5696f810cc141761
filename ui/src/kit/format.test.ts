import { expect, test } from "bun:test";
import { endpointUsage } from "../lib/plans.ts";
import { formatBytes, formatFullDate, formatRelative, queryPairs } from "./format.ts";

test("sizes", () => {
  expect(formatBytes(0)).toBe("0 B");
  expect(formatBytes(1536)).toBe("1.5 KiB");
  expect(formatBytes(3 * 1024 * 1024)).toBe("3.0 MiB");
});

test("relative times", () => {
  const now = Date.parse("2025-01-10T12:00:00Z");
  expect(formatRelative("2025-01-10T12:00:00Z", now)).toBe("just now");
  expect(formatRelative("2025-01-10T11:59:30Z", now)).toBe("30 s ago");
  expect(formatRelative("2025-01-10T11:00:00Z", now)).toBe("1 h ago");
  expect(formatRelative("2024-12-01T00:00:00Z", now)).toBe("2024-12-01");
  expect(formatRelative(null, now)).toBe("never");
});

test("full dates carry the year, milliseconds and the UTC offset", () => {
  expect(formatFullDate("2025-01-10T12:00:00.250Z")).toMatch(
    /^2025-01-1\d \d\d:\d\d:00\.250 UTC[+-]\d\d:\d\d$/,
  );
  expect(formatFullDate(null)).toBe("—");
});

test("query pairs keep order and repeats", () => {
  expect(queryPairs("?a=1&b=&a=2")).toEqual([
    ["a", "1"],
    ["b", ""],
    ["a", "2"],
  ]);
});

test("plan usage and limits", () => {
  expect(endpointUsage(3, 3)).toEqual({ text: "3 of 3 endpoints used", reached: true });
  expect(endpointUsage(1, null).reached).toBe(false);
});

test("a time ahead reads as how long until it", () => {
  const now = Date.parse("2026-11-26T12:00:00Z");
  expect(formatRelative("2026-11-26T12:00:30Z", now)).toBe("in 30 s");
  expect(formatRelative("2026-11-26T12:00:50.000Z", now)).toBe("in 50 s");
  expect(formatRelative("2026-11-26T12:01:30Z", now)).toBe("in 2 min");
  expect(formatRelative("2026-11-26T15:00:00Z", now)).toBe("in 3 h");
  expect(formatRelative("2026-11-26T12:00:01Z", now)).toBe("just now");
});
