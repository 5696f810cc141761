import { describe, expect, test } from "bun:test";
import { createRateLimiter } from "./rate-limit.model.ts";

const rule = { ratePerSecond: 10, burst: 20 };

describe("token bucket", () => {
  test("a new bucket allows a full burst, then asks to wait", () => {
    const limiter = createRateLimiter();
    for (let i = 0; i < 20; i++) expect(limiter.take("e", rule, 0)).toBe(0);
    expect(limiter.take("e", rule, 0)).toBe(1);
  });

  test("tokens come back at the rate, never above the burst", () => {
    const limiter = createRateLimiter();
    for (let i = 0; i < 20; i++) limiter.take("e", rule, 0);
    // 100 ms at 10/s is one token.
    expect(limiter.take("e", rule, 100)).toBe(0);
    expect(limiter.take("e", rule, 100)).toBe(1);
    // A long quiet spell refills to the burst, not beyond.
    for (let i = 0; i < 20; i++) expect(limiter.take("e", rule, 3_600_000)).toBe(0);
    expect(limiter.take("e", rule, 3_600_000)).toBe(1);
  });

  test("Retry-After is the whole seconds until the next token, at least 1", () => {
    const limiter = createRateLimiter();
    const slow = { ratePerSecond: 0.25, burst: 1 };
    expect(limiter.take("e", slow, 0)).toBe(0);
    expect(limiter.take("e", slow, 0)).toBe(4);
    expect(limiter.take("e", slow, 3000)).toBe(1);
    expect(limiter.take("e", slow, 4000)).toBe(0);
  });

  test("keys are independent, and each take uses the rule it is given", () => {
    const limiter = createRateLimiter();
    const tiny = { ratePerSecond: 1, burst: 1 };
    expect(limiter.take("a", tiny, 0)).toBe(0);
    expect(limiter.take("a", tiny, 0)).toBe(1);
    expect(limiter.take("b", tiny, 0)).toBe(0);
    // A bigger plan applies at once: the bucket now refills towards the larger burst.
    expect(limiter.take("a", { ratePerSecond: 100, burst: 200 }, 100)).toBe(0);
  });

  test("a rate of zero never refills and says so with a long wait", () => {
    const limiter = createRateLimiter();
    const none = { ratePerSecond: 0, burst: 1 };
    expect(limiter.take("e", none, 0)).toBe(0);
    expect(limiter.take("e", none, 10_000_000)).toBe(3600);
  });

  test("a clock that steps back neither adds nor removes tokens", () => {
    const limiter = createRateLimiter();
    const tiny = { ratePerSecond: 1, burst: 1 };
    expect(limiter.take("e", tiny, 10_000)).toBe(0);
    expect(limiter.take("e", tiny, 5_000)).toBe(1);
    expect(limiter.take("e", tiny, 11_000)).toBe(0);
  });

  test("idle full buckets are dropped once many keys are held", () => {
    const limiter = createRateLimiter();
    for (let i = 0; i < 10_000; i++) limiter.take(`k${i}`, rule, 0);
    expect(limiter.size()).toBe(10_000);
    // An hour later every bucket is full again: the next new key prunes them all.
    limiter.take("late", rule, 3_600_000);
    expect(limiter.size()).toBe(1);
  });
});
