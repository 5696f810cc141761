/**
 * The circuit breaker of one destination (decisions.md §8): it opens when at least half of the
 * last 20 attempts failed (once there are 10) or after 5 failures in a row; it stays open for
 * `openMs` (WEIR_BREAKER_OPEN_MS), then lets one attempt through (half-open); that attempt's
 * success closes it, its failure opens it again. While open, due deliveries wait: they are never
 * dropped. The state is plain data so the delivery room can keep it in a row (it survives a
 * restart).
 */
export type BreakerPhase = "closed" | "open" | "half_open";

export interface BreakerState {
  phase: BreakerPhase;
  /** Outcomes of the last attempts, oldest first, true = success; at most WINDOW entries. */
  recent: boolean[];
  consecutiveFailures: number;
  /** While open: when a probe may go (epoch ms). */
  openUntil: number | null;
  /** While half-open: whether the one probe is out. */
  probeInFlight: boolean;
}

export const WINDOW = 20;
export const MIN_ATTEMPTS = 10;
export const FAILURE_RATIO = 0.5;
export const CONSECUTIVE_FAILURES = 5;

export const closedBreaker = (): BreakerState => ({
  phase: "closed",
  recent: [],
  consecutiveFailures: 0,
  openUntil: null,
  probeInFlight: false,
});

/** What a worker may do with a due delivery of this destination now. */
export type Admission =
  | { allowed: true; state: BreakerState }
  | { allowed: false; state: BreakerState; retryAt: number };

/** Asks to send one attempt at `now`; an admitted half-open probe is marked as out. */
export function admit(state: BreakerState, now: number): Admission {
  if (state.phase === "closed") return { allowed: true, state };
  if (state.phase === "open") {
    const until = state.openUntil ?? now;
    if (now < until) return { allowed: false, state, retryAt: until };
    return { allowed: true, state: { ...state, phase: "half_open", probeInFlight: true } };
  }
  if (state.probeInFlight) return { allowed: false, state, retryAt: state.openUntil ?? now };
  return { allowed: true, state: { ...state, probeInFlight: true } };
}

/** Records the outcome of an admitted attempt. */
export function record(
  state: BreakerState,
  success: boolean,
  now: number,
  openMs: number,
): BreakerState {
  const recent = [...state.recent, success].slice(-WINDOW);
  if (success) {
    return state.phase === "closed"
      ? { ...state, recent, consecutiveFailures: 0 }
      : { ...closedBreaker(), recent: [] };
  }
  const consecutiveFailures = state.consecutiveFailures + 1;
  const failed = { ...state, recent, consecutiveFailures, probeInFlight: false };
  // Open admits nothing: this failure is of an attempt sent before it opened (its outcome came
  // late), and must not put off the probe (nor the one an operator's retry asked for).
  if (state.phase === "open") return failed;
  if (state.phase !== "closed" || tripped(recent, consecutiveFailures)) {
    return { ...failed, phase: "open", openUntil: now + openMs };
  }
  return failed;
}

/**
 * A probe that never reported (a crash mid-attempt) must not keep the breaker half-open for
 * ever: after `openMs` the next admission may probe again.
 */
export function releaseStaleProbe(state: BreakerState, now: number, openMs: number): BreakerState {
  if (state.phase !== "half_open" || !state.probeInFlight) return state;
  const since = state.openUntil ?? now;
  return now >= since + openMs ? { ...state, probeInFlight: false } : state;
}

function tripped(recent: boolean[], consecutiveFailures: number): boolean {
  if (consecutiveFailures >= CONSECUTIVE_FAILURES) return true;
  if (recent.length < MIN_ATTEMPTS) return false;
  const failures = recent.filter((ok) => !ok).length;
  return failures / recent.length >= FAILURE_RATIO;
}
