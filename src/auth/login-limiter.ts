import type { Clock } from "../shared/clock.ts";

/**
 * Login attempts per client address: a token bucket of `burst` attempts refilled at
 * `perMinute`. Guessing passwords gets slow; a person who mistypes twice does not notice.
 */
export function createLoginLimiter(clock: Clock, options = { burst: 10, perMinute: 10 }) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const refillPerMs = options.perMinute / 60_000;
  return {
    /** Takes one attempt; returns 0 when allowed, else the seconds until the next one is. */
    take(address: string): number {
      const now = clock.now();
      const bucket = buckets.get(address) ?? { tokens: options.burst, at: now };
      bucket.tokens = Math.min(options.burst, bucket.tokens + (now - bucket.at) * refillPerMs);
      bucket.at = now;
      buckets.set(address, bucket);
      if (buckets.size > 10_000) forgetFull(buckets, options.burst);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.ceil((1 - bucket.tokens) / refillPerMs / 1000);
    },
  };
}

/** Keeps memory bounded under a flood of addresses: full buckets carry no information. */
function forgetFull(buckets: Map<string, { tokens: number }>, burst: number): void {
  for (const [address, bucket] of buckets) if (bucket.tokens >= burst - 1) buckets.delete(address);
}
