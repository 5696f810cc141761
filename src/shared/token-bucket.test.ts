import { describe, expect, test } from "bun:test";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createKeyedLimiter, createTokenBuckets, perMinute } from "./token-bucket.ts";

const rule = { ratePerSecond: 10, burst: 20 };

describe("token bucket", () => {
  test("a new bucket allows a full burst, then asks to wait", () => {
    const limiter = createTokenBuckets();
    for (let i = 0; i < 20; i++) expect(limiter.take("e", rule, 0)).toBe(0);
    expect(limiter.take("e", rule, 0)).toBe(1);
  });

  test("tokens come back at the rate, never above the burst", () => {
    const limiter = createTokenBuckets();
    for (let i = 0; i < 20; i++) limiter.take("e", rule, 0);
    // 100 ms at 10/s is one token.
    expect(limiter.take("e", rule, 100)).toBe(0);
    expect(limiter.take("e", rule, 100)).toBe(1);
    // A long quiet spell refills to the burst, not beyond.
    for (let i = 0; i < 20; i++) expect(limiter.take("e", rule, 3_600_000)).toBe(0);
    expect(limiter.take("e", rule, 3_600_000)).toBe(1);
  });

  test("Retry-After is the whole seconds until the next token, at least 1", () => {
    const limiter = createTokenBuckets();
    const slow = { ratePerSecond: 0.25, burst: 1 };
    expect(limiter.take("e", slow, 0)).toBe(0);
    expect(limiter.take("e", slow, 0)).toBe(4);
    expect(limiter.take("e", slow, 3000)).toBe(1);
    expect(limiter.take("e", slow, 4000)).toBe(0);
  });

  test("keys are independent, and each take uses the rule it is given", () => {
    const limiter = createTokenBuckets();
    const tiny = { ratePerSecond: 1, burst: 1 };
    expect(limiter.take("a", tiny, 0)).toBe(0);
    expect(limiter.take("a", tiny, 0)).toBe(1);
    expect(limiter.take("b", tiny, 0)).toBe(0);
    // A bigger plan applies at once: the bucket now refills towards the larger burst.
    expect(limiter.take("a", { ratePerSecond: 100, burst: 200 }, 100)).toBe(0);
  });

  test("a rate of zero never refills and says so with a long wait", () => {
    const limiter = createTokenBuckets();
    const none = { ratePerSecond: 0, burst: 1 };
    expect(limiter.take("e", none, 0)).toBe(0);
    expect(limiter.take("e", none, 10_000_000)).toBe(3600);
  });

  test("a clock that steps back neither adds nor removes tokens", () => {
    const limiter = createTokenBuckets();
    const tiny = { ratePerSecond: 1, burst: 1 };
    expect(limiter.take("e", tiny, 10_000)).toBe(0);
    expect(limiter.take("e", tiny, 5_000)).toBe(1);
    expect(limiter.take("e", tiny, 11_000)).toBe(0);
  });

  test("idle full buckets are dropped once the table is full", () => {
    const limiter = createTokenBuckets(10_000);
    for (let i = 0; i < 10_000; i++) limiter.take(`k${i}`, rule, 0);
    expect(limiter.size()).toBe(10_000);
    // An hour later every bucket is full again: the next new key sweeps them all.
    limiter.take("late", rule, 3_600_000);
    expect(limiter.size()).toBe(1);
  });
});

describe("token buckets under a flood of addresses (never fail open)", () => {
  const login = perMinute(10, 10);

  test("100,000 distinct addresses: an exhausted address stays limited, new ones share a bucket, memory is bounded", () => {
    const clock = createFakeClock();
    const limiter = createKeyedLimiter(clock, login, 10_000);
    for (let i = 0; i < 10; i++) expect(limiter.take("guesser")).toBe(0);
    expect(limiter.take("guesser")).toBeGreaterThan(0);

    let allowed = 0;
    for (let i = 0; i < 100_000; i++) {
      if (limiter.take(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`) === 0) allowed += 1;
    }
    // 9,999 addresses fit beside the guesser; the other 90,001 share one bucket of 10.
    expect(allowed).toBe(9_999 + 10);
    expect(limiter.size()).toBe(10_001);
    expect(limiter.take("guesser")).toBeGreaterThan(0);
    // An address first seen during the flood is limited after its burst too.
    expect(limiter.take("203.0.113.9")).toBeGreaterThan(0);
  });

  test("the old failure: once the table is full, a new address is still limited after its burst", () => {
    const clock = createFakeClock();
    const limiter = createKeyedLimiter(clock, login, 10_000);
    for (let i = 0; i < 10_000; i++) limiter.take(`a${i}`);
    const blocked = Array.from({ length: 1_000 }, () => limiter.take("newcomer")).filter(
      (wait) => wait > 0,
    ).length;
    expect(blocked).toBe(990);
  });

  test("once buckets are full again the sweep frees them, and new addresses get their own", () => {
    const clock = createFakeClock();
    const limiter = createKeyedLimiter(clock, login, 1_000);
    for (let i = 0; i < 5_000; i++) limiter.take(`a${i}`);
    expect(limiter.size()).toBe(1_001);
    // Three seconds refill half a token (ten a minute): no bucket is full yet, none is dropped.
    clock.advance(3_000);
    limiter.take("b0");
    expect(limiter.size()).toBe(1_001);
    // Ten minutes: everything refilled; the table holds only the new key (and the overflow).
    clock.advance(600_000);
    for (let i = 0; i < 10; i++) expect(limiter.take("b1")).toBe(0);
    expect(limiter.take("b1")).toBeGreaterThan(0);
    expect(limiter.size()).toBe(2);
  });
});
