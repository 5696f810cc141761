/**
 * When a failed delivery is tried again (decisions.md §8, §10): exponential backoff from a base,
 * doubling per failed attempt, capped, with ±20 % jitter so that a destination that comes back
 * is not hit by every waiting delivery in the same second. A `Retry-After` from the destination
 * is honoured: the next try is never earlier than it asks, and never later than the cap.
 */
export interface RetryPolicy {
  baseMs: number;
  capMs: number;
}

export const JITTER = 0.2;

/**
 * Delay before the next try after `failedAttempts` failures (1 after the first failure).
 * `random` is a number in [0, 1) (deps.ids or Math.random in production, fixed in tests).
 */
export function retryDelayMs(
  policy: RetryPolicy,
  failedAttempts: number,
  random: number,
  retryAfterMs: number | null = null,
): number {
  const exponent = Math.max(0, failedAttempts - 1);
  // 2 ** 60 already passes any sane cap; stopping there keeps the arithmetic finite.
  const backoff = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(exponent, 60));
  const jittered = backoff * (1 - JITTER + 2 * JITTER * random);
  const delay = Math.max(jittered, retryAfterMs ?? 0);
  return Math.round(Math.min(policy.capMs, delay));
}

/**
 * A `Retry-After` header in milliseconds from `nowMs`: delta-seconds or an HTTP-date (RFC 9110
 * §10.2.3). Null when absent or unreadable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** Whether another try is allowed: `max_retries` N means N retries after the first try (§12). */
export function mayRetry(maxRetries: number, attemptsMade: number): boolean {
  return attemptsMade <= maxRetries;
}
