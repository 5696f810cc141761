/** The one source of time. Services take a Clock so retries, TTLs and retention are testable exactly. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** The wall clock. */
export function createSystemClock(): Clock {
  return { now: () => Date.now() };
}

/** ISO 8601 text of a clock reading, the one timestamp format of the API. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString();
}
