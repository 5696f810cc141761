/** A token bucket's size: refill rate per second and the most tokens it can hold. */
export interface BucketRule {
  ratePerSecond: number;
  burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
  /** The rule of the latest take, used when pruning. */
  rule: BucketRule;
}

/** Buckets idle long enough to be full again are dropped once the map grows past this. */
const PRUNE_ABOVE = 10_000;
/** Answer for a bucket that never refills (rate 0): ask again in an hour. */
const NEVER_SECONDS = 3600;

/** Per-key token buckets (decisions.md §3: capture rate per endpoint). Time is passed in. */
export interface RateLimiter {
  /** Takes one token for `key`; returns 0 when allowed, else the seconds to wait (≥ 1). */
  take(key: string, rule: BucketRule, nowMs: number): number;
  /** How many buckets are held (for tests of the pruning). */
  size(): number;
}

/**
 * In-memory buckets: each starts full, refills continuously, and is sized by the rule passed
 * on each call, so a plan change applies on the next request. Limits reset on restart, which
 * only ever lets a burst through.
 */
export function createRateLimiter(): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const refill = (bucket: Bucket, rule: BucketRule, nowMs: number) => {
    const elapsed = Math.max(0, nowMs - bucket.at);
    bucket.tokens = Math.min(rule.burst, bucket.tokens + (elapsed * rule.ratePerSecond) / 1000);
    bucket.at = Math.max(bucket.at, nowMs);
  };
  const prune = (nowMs: number) => {
    for (const [key, bucket] of buckets) {
      refill(bucket, bucket.rule, nowMs);
      if (bucket.tokens >= bucket.rule.burst) buckets.delete(key);
    }
  };
  return {
    take(key, rule, nowMs) {
      let bucket = buckets.get(key);
      if (bucket) {
        refill(bucket, rule, nowMs);
        bucket.rule = rule;
      } else {
        if (buckets.size >= PRUNE_ABOVE) prune(nowMs);
        bucket = { tokens: rule.burst, at: nowMs, rule };
        buckets.set(key, bucket);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      if (rule.ratePerSecond <= 0) return NEVER_SECONDS;
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rule.ratePerSecond));
    },
    size: () => buckets.size,
  };
}
