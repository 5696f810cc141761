import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { DeliveryAttempt } from "./delivery.ports.ts";

/** What the operator needs to read about one failed try, never its body or headers. */
export interface FailedTry {
  kind: string;
  /** The destination (or `forward:<endpoint>` / `replay:<endpoint>`) the line is limited by. */
  destinationKey: string;
  deliveryId: string;
  attempt: number;
  url: string;
  statusCode: number | null;
  errorType: string;
  errorCode: string | null;
  errorMessage: string | null;
}

export const FAILURE_LOG_INTERVAL_MS = 60_000;
/** Beyond this many destinations the quiet ones are forgotten, so the map stays small. */
const MAX_TRACKED = 10_000;

/**
 * Failed forwards, replays and deliveries reach the log without flooding it: the first failure
 * of a destination in a minute is a warn line at once; the failures after it in that minute are
 * only counted, and the next line says how many there were. A dead destination under a flood of
 * webhooks therefore writes about one line a minute.
 */
export function createFailureLog(logger: Logger, clock: Clock) {
  const seen = new Map<string, { loggedAt: number; suppressed: number }>();
  const forgetQuiet = (now: number) => {
    for (const [key, entry] of seen) {
      if (now - entry.loggedAt >= FAILURE_LOG_INTERVAL_MS) seen.delete(key);
    }
  };
  return (failed: FailedTry): void => {
    const now = clock.now();
    const entry = seen.get(failed.destinationKey);
    if (entry && now - entry.loggedAt < FAILURE_LOG_INTERVAL_MS) {
      entry.suppressed += 1;
      return;
    }
    if (seen.size >= MAX_TRACKED) forgetQuiet(now);
    logger.warn(`${failed.kind} attempt failed`, {
      destination: failed.destinationKey,
      delivery_id: failed.deliveryId,
      attempt: failed.attempt,
      url: failed.url,
      status_code: failed.statusCode,
      error_type: failed.errorType,
      error_code: failed.errorCode,
      error_message: failed.errorMessage,
      failed_since_last_line: entry?.suppressed ?? 0,
    });
    seen.set(failed.destinationKey, { loggedAt: now, suppressed: 0 });
  };
}

export type FailureLog = ReturnType<typeof createFailureLog>;

/** The log's view of a failed attempt of a stored delivery. */
export function failedTry(
  delivery: { kind: string; destinationKey: string; id: string },
  attempt: DeliveryAttempt,
): FailedTry {
  return {
    kind: delivery.kind,
    destinationKey: delivery.destinationKey,
    deliveryId: delivery.id,
    attempt: attempt.attempt,
    url: attempt.url,
    statusCode: attempt.statusCode,
    errorType: attempt.errorType ?? "unknown",
    errorCode: attempt.errorCode,
    errorMessage: attempt.errorMessage,
  };
}
