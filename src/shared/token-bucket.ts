import type { Clock } from "./clock.ts";

/** A token bucket's size: refill rate per second and the most tokens it can hold. */
export interface BucketRule {
  ratePerSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
  /** The rule of the latest take, used when sweeping. */
  rule: BucketRule;
}

/** Answer for a bucket that never refills (rate 0): ask again in an hour. */
const NEVER_SECONDS = 3600;
/** Buckets held at most (plus one shared overflow bucket): ~100 bytes each. */
export const DEFAULT_BUCKET_CAPACITY = 10_000;

/**
 * Per-key token buckets: the one rate limiter of Weir (capture per endpoint, login, registration
 * and anonymous creation per client). Time is passed in.
 */
export interface TokenBuckets {
  /** Takes one token for `key`; returns 0 when allowed, else the seconds to wait (≥ 1). */
  take(key: string, rule: BucketRule, nowMs: number): number;
  /** Buckets held, the overflow bucket included: never above capacity + 1. */
  size(): number;
}

/**
 * In-memory buckets: each starts full, refills continuously, and is sized by the rule passed on
 * each call, so a plan change applies on the next request. Memory is bounded without ever
 * failing open: when the table is full, a sweep refills every bucket and drops only those full
 * again (they carry no information). When none is, new keys share one overflow bucket until one
 * is, so a flood of addresses throttles itself instead of resetting anyone's bucket. Limits reset
 * on restart, which only ever lets one burst through.
 */
export function createTokenBuckets(capacity = DEFAULT_BUCKET_CAPACITY): TokenBuckets {
  const buckets = new Map<string, Bucket>();
  let overflow: Bucket | null = null;
  /** No bucket can be full again before this time, so sweeping earlier frees nothing. */
  let noSweepBefore = Number.NEGATIVE_INFINITY;

  const sweep = (nowMs: number) => {
    let earliestFull = Number.POSITIVE_INFINITY;
    for (const [key, bucket] of buckets) {
      refill(bucket, bucket.rule, nowMs);
      if (bucket.tokens >= bucket.rule.burst) buckets.delete(key);
      else earliestFull = Math.min(earliestFull, fullAt(bucket));
    }
    noSweepBefore = buckets.size >= capacity ? earliestFull : Number.NEGATIVE_INFINITY;
  };

  const bucketFor = (key: string, rule: BucketRule, nowMs: number): Bucket => {
    const existing = buckets.get(key);
    if (existing) return existing;
    if (buckets.size >= capacity && nowMs >= noSweepBefore) sweep(nowMs);
    if (buckets.size < capacity) {
      const bucket = { tokens: rule.burst, at: nowMs, rule };
      buckets.set(key, bucket);
      return bucket;
    }
    overflow ??= { tokens: rule.burst, at: nowMs, rule };
    return overflow;
  };

  return {
    take(key, rule, nowMs) {
      const bucket = bucketFor(key, rule, nowMs);
      refill(bucket, rule, nowMs);
      bucket.rule = rule;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      if (rule.ratePerSecond <= 0) return NEVER_SECONDS;
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rule.ratePerSecond));
    },
    size: () => buckets.size + (overflow ? 1 : 0),
  };
}

/** One limit for every key (login, registration, anonymous creation), on the app's clock. */
export function createKeyedLimiter(
  clock: Clock,
  rule: BucketRule,
  capacity = DEFAULT_BUCKET_CAPACITY,
) {
  const buckets = createTokenBuckets(capacity);
  return {
    /** Takes one attempt for `key`; 0 when allowed, else the seconds until the next one is. */
    take: (key: string) => buckets.take(key, rule, clock.now()),
    size: () => buckets.size(),
  };
}

export type KeyedLimiter = ReturnType<typeof createKeyedLimiter>;

/** Per minute, as people think of login and creation limits. */
export const perMinute = (burst: number, count: number): BucketRule => ({
  burst,
  ratePerSecond: count / 60,
});

function refill(bucket: Bucket, rule: BucketRule, nowMs: number): void {
  const elapsed = Math.max(0, nowMs - bucket.at);
  bucket.tokens = Math.min(rule.burst, bucket.tokens + (elapsed * rule.ratePerSecond) / 1000);
  bucket.at = Math.max(bucket.at, nowMs);
}

function fullAt(bucket: Bucket): number {
  const { rule } = bucket;
  if (rule.ratePerSecond <= 0) return Number.POSITIVE_INFINITY;
  return bucket.at + ((rule.burst - bucket.tokens) * 1000) / rule.ratePerSecond;
}
