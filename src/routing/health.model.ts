/**
 * Delivery health (docs/delivery.md, "Delivery health"): daily outcome counts of a bridge or a
 * destination and the state a status page shows. Pure: the repo reads the rows, this fills the
 * days and decides the state.
 */

/** How long the daily counts are kept: longer than any status page's bars. */
export const HEALTH_RETENTION_DAYS = 400;
export const DEFAULT_HEALTH_DAYS = 90;
/** A failed attempt this recent makes a component `degraded`. */
export const DEGRADED_WINDOW_MS = 3_600_000;
const DAY_MS = 86_400_000;

export type HealthState = "up" | "degraded" | "down";

export interface HealthDay {
  /** YYYY-MM-DD, UTC. */
  date: string;
  /** Deliveries that ended this day (delivered or given up), each once. */
  attempted: number;
  delivered: number;
}

/** What the status pages and `GET …/health` show of a bridge or a destination. */
export interface DeliveryHealth {
  name: string;
  state: HealthState;
  /** Oldest first, exactly the days asked for, the last one today. */
  days: HealthDay[];
}

export type HealthComponent = { bridge_id: string } | { destination_id: string };

/** The UTC day of an instant (epoch ms or an ISO string), as the counts are keyed. */
export const dayOf = (at: number | string): string =>
  typeof at === "string" ? at.slice(0, 10) : new Date(at).toISOString().slice(0, 10);

/** The first day of a window of `days` days ending today. */
export const firstDay = (now: number, days: number): string => dayOf(now - (days - 1) * DAY_MS);

/** The last day whose counts are swept: everything before the retention window. */
export const sweptBefore = (now: number): string => firstDay(now, HEALTH_RETENTION_DAYS);

/** Every day of the window, oldest first; a day with no stored counts is zeros. */
export function fillDays(now: number, days: number, stored: readonly HealthDay[]): HealthDay[] {
  const byDate = new Map(stored.map((d) => [d.date, d]));
  const start = now - (days - 1) * DAY_MS;
  return Array.from({ length: days }, (_, i) => {
    const date = dayOf(start + i * DAY_MS);
    const found = byDate.get(date);
    return { date, attempted: found?.attempted ?? 0, delivered: found?.delivered ?? 0 };
  });
}

/** What decides a destination's state. */
export interface DestinationSignals {
  /** Its bridge is paused: nothing is delivered. */
  paused: boolean;
  /** Its circuit breaker is open or half-open (a probe has not closed it yet). */
  breakerOpen: boolean;
  /** The last failed attempt (epoch ms), or null. */
  lastFailureAt: number | null;
}

const failedRecently = (lastFailureAt: number | null, now: number) =>
  lastFailureAt !== null && now - lastFailureAt < DEGRADED_WINDOW_MS;

/** down: paused or its breaker open; degraded: a failed attempt in the last hour; else up. */
export function destinationState(s: DestinationSignals, now: number): HealthState {
  if (s.paused || s.breakerOpen) return "down";
  return failedRecently(s.lastFailureAt, now) ? "degraded" : "up";
}

/**
 * down: paused, or every destination down (a bridge with none is up: nothing fails);
 * degraded: some destination down or degraded; else up.
 */
export function bridgeState(
  paused: boolean,
  destinations: readonly DestinationSignals[],
  now: number,
): HealthState {
  if (paused) return "down";
  const states = destinations.map((d) => destinationState(d, now));
  if (states.length > 0 && states.every((s) => s === "down")) return "down";
  return states.some((s) => s !== "up") ? "degraded" : "up";
}

/** A window a caller of the port asked for, kept within 1–400 (90 when it is not a number). */
export const clampDays = (days: number): number =>
  Number.isFinite(days)
    ? Math.min(HEALTH_RETENTION_DAYS, Math.max(1, Math.floor(days)))
    : DEFAULT_HEALTH_DAYS;

/** `?days=`: absent → 90; else a whole number 1–400, or the field's error. */
export function parseHealthDays(raw: string | undefined): { days: number } | { error: string } {
  if (raw === undefined || raw === "") return { days: DEFAULT_HEALTH_DAYS };
  const days = Number(raw);
  if (!/^\d+$/.test(raw) || days < 1 || days > HEALTH_RETENTION_DAYS) {
    return { error: `must be a whole number from 1 to ${HEALTH_RETENTION_DAYS}` };
  }
  return { days };
}
