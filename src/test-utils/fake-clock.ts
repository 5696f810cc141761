import type { TimerClock } from "../shared/clock.ts";

/**
 * A clock that only moves when told: retries, TTLs and expiry become exact in tests. Moving it
 * forward fires the timers that fall due on the way, each at its own reading and in time order
 * (ties in the order they were set), so interval and one-shot jobs run deterministically.
 */
export interface FakeClock extends TimerClock {
  advance(ms: number): void;
  set(ms: number): void;
  /** Timers set and not yet fired or cancelled. */
  pendingTimers(): number;
}

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** Starts at `start` (default 2026-01-01T00:00:00Z). */
export function createFakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let current = start;
  let seq = 0;
  const timers = new Set<Timer>();
  const nextDue = (until: number): Timer | undefined => {
    let first: Timer | undefined;
    for (const t of timers) {
      if (t.at > until) continue;
      if (!first || t.at < first.at || (t.at === first.at && t.seq < first.seq)) first = t;
    }
    return first;
  };
  const moveTo = (target: number) => {
    for (let due = nextDue(target); due; due = nextDue(target)) {
      timers.delete(due);
      current = Math.max(current, due.at);
      due.fire();
    }
    current = target;
  };
  return {
    now: () => current,
    timer(at, fire) {
      const timer = { at, seq: seq++, fire };
      timers.add(timer);
      return () => timers.delete(timer);
    },
    advance: (ms) => moveTo(current + ms),
    set: (ms) => moveTo(ms),
    pendingTimers: () => timers.size,
  };
}
