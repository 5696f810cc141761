/** The one source of time. Services take a Clock so retries, TTLs and retention are testable exactly. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/**
 * A clock that can also wake code when it reaches a reading: the scheduler's only timer source,
 * so a fake clock that is advanced fires exactly the timers that fell due, in order.
 */
export interface TimerClock extends Clock {
  /** Calls `fire` once the clock reads `at` or later; returns the function that cancels it. */
  timer(at: number, fire: () => void): () => void;
}

/** setTimeout's longest delay; longer waits are chained. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The wall clock. Its timers never keep the process alive on their own (a server does). */
export function createSystemClock(): TimerClock {
  return {
    now: () => Date.now(),
    timer(at, fire) {
      let handle: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        const wait = at - Date.now();
        if (wait <= 0) {
          handle = undefined;
          fire();
          return;
        }
        handle = setTimeout(arm, Math.min(wait, MAX_TIMEOUT_MS));
        handle.unref?.();
      };
      handle = setTimeout(arm, Math.max(0, Math.min(at - Date.now(), MAX_TIMEOUT_MS)));
      handle.unref?.();
      return () => {
        if (handle !== undefined) clearTimeout(handle);
        handle = undefined;
      };
    },
  };
}

/** ISO 8601 text of a clock reading, the one timestamp format of the API. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
