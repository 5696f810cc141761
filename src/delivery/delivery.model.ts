import type { DeliveryStatus } from "./delivery.ports.ts";
import { mayRetry, type RetryPolicy, retryDelayMs } from "./delivery.retry.model.ts";

/** How long a row held back by a half-open breaker (its probe is out) waits before asking again. */
export const PROBE_WAIT_MAX_MS = 1000;

/** What one attempt came to, as the outcome rule needs it. */
export interface AttemptResult {
  success: boolean;
  /** false: trying again cannot help (the address policy refused the target, the owner said so). */
  retryable: boolean;
  /** A `Retry-After` the destination sent, in ms from now. */
  retryAfterMs: number | null;
}

/** Where a delivery goes after an attempt: its status and when it is due next (null: ended). */
export interface NextStep {
  status: DeliveryStatus;
  nextAttemptAt: number | null;
}

/**
 * The state machine after one attempt: success ends it as delivered; a retryable failure within
 * the retry budget (`max_retries` retries after the first try, counted from the last requeue)
 * makes it `retrying`, due after the backoff; anything else ends it as failed.
 */
export function nextStep(input: {
  result: AttemptResult;
  /** Attempts made, this one included. */
  attempts: number;
  attemptsBeforeRequeue: number;
  maxRetries: number;
  now: number;
  policy: RetryPolicy;
  random: number;
}): NextStep {
  if (input.result.success) return { status: "delivered", nextAttemptAt: null };
  const made = input.attempts - input.attemptsBeforeRequeue;
  if (!input.result.retryable || !mayRetry(input.maxRetries, made)) {
    return { status: "failed", nextAttemptAt: null };
  }
  const delay = retryDelayMs(input.policy, made, input.random, input.result.retryAfterMs);
  return { status: "retrying", nextAttemptAt: input.now + delay };
}

/**
 * When a row the breaker refused asks again: at the breaker's reopening time; while a half-open
 * probe is out (no future time to wait for), shortly, so the probe's outcome is seen soon.
 */
export function breakerWaitUntil(retryAt: number, now: number, openMs: number): number {
  return retryAt > now ? retryAt : now + Math.min(openMs, PROBE_WAIT_MAX_MS);
}

/** Error codes after which the same request would be refused again: no retry. */
const FINAL_CODES = new Set(["blocked_address", "invalid_request"]);

/** Whether a failed send is worth another try (decisions §8: non-2xx and network errors are). */
export function isRetryableFailure(errorCode: string | null): boolean {
  return errorCode === null || !FINAL_CODES.has(errorCode);
}
