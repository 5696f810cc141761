import type { Clock } from "../shared/clock.ts";

/** A clock that only moves when told: retries, TTLs and expiry become exact in tests. */
export interface FakeClock extends Clock {
  advance(ms: number): void;
  set(ms: number): void;
}

/** Starts at `start` (default 2026-01-01T00:00:00Z). */
export function createFakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
    set: (ms) => {
      current = ms;
    },
  };
}
