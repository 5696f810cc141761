import { describe, expect, test } from "bun:test";
import { mayRetry, parseRetryAfter, retryDelayMs } from "./delivery.retry.model.ts";

const policy = { baseMs: 5_000, capMs: 3_600_000 };
const MID = 0.5; // no jitter: 1 - 0.2 + 0.4 * 0.5 = 1

describe("retry delay: exponential, capped, jittered", () => {
  // [failed attempts, random, expected ms]
  const rows: Array<[number, number, number]> = [
    [1, MID, 5_000],
    [2, MID, 10_000],
    [3, MID, 20_000],
    [4, MID, 40_000],
    [5, MID, 80_000],
    [10, MID, 2_560_000],
    [11, MID, 3_600_000], // 5 s * 2^10 = 5,120 s: capped at 1 h
    [15, MID, 3_600_000],
    [1_000, MID, 3_600_000],
    [1, 0, 4_000], // -20 %
    [1, 0.999999, 6_000], // +20 % (just under)
    [3, 0, 16_000],
    [3, 0.75, 22_000],
    [11, 0, 2_880_000], // jitter below the cap
    [11, 0.999999, 3_600_000], // never above the cap
    [0, MID, 5_000], // defensive: treated as the first failure
  ];
  for (const [failed, random, expected] of rows) {
    test(`after ${failed} failure(s), random ${random}: ${expected} ms`, () => {
      expect(retryDelayMs(policy, failed, random)).toBe(expected);
    });
  }

  test("the knobs change base and cap", () => {
    const fast = { baseMs: 10, capMs: 50 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(fast, n, MID))).toEqual([10, 20, 40, 50, 50]);
  });
});

describe("retry delay: Retry-After is honoured", () => {
  test("a longer Retry-After wins over the backoff", () => {
    expect(retryDelayMs(policy, 1, MID, 120_000)).toBe(120_000);
  });
  test("a shorter Retry-After never makes the retry earlier than the backoff", () => {
    expect(retryDelayMs(policy, 3, MID, 1_000)).toBe(20_000);
  });
  test("a Retry-After beyond the cap is capped", () => {
    expect(retryDelayMs(policy, 1, MID, 86_400_000)).toBe(3_600_000);
  });
});

describe("Retry-After parsing", () => {
  const now = Date.parse("2026-11-24T10:00:00Z");
  // [header, expected ms]
  const rows: Array<[string | null, number | null]> = [
    ["120", 120_000],
    [" 7 ", 7_000],
    ["0", 0],
    ["Tue, 24 Nov 2026 10:01:30 GMT", 90_000],
    ["Tue, 24 Nov 2026 09:00:00 GMT", 0], // in the past
    ["-5", null],
    ["1.5", null],
    ["soon", null],
    ["", null],
    [null, null],
  ];
  for (const [header, expected] of rows) {
    test(`${JSON.stringify(header)} → ${expected}`, () => {
      expect(parseRetryAfter(header, now)).toBe(expected);
    });
  }
});

describe("max_retries N allows N retries after the first try", () => {
  test.each([
    [0, 1, false],
    [1, 1, true],
    [1, 2, false],
    [15, 15, true],
    [15, 16, false],
  ])("max_retries %i after %i attempt(s): %p", (max, made, allowed) => {
    expect(mayRetry(max, made)).toBe(allowed);
  });
});
