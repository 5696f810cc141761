import { Cron } from "croner";

/** A maintenance window as the room holds it (decisions.md §15). */
export interface MaintenanceWindow {
  id: string;
  organizationId: string;
  title: string;
  description: string | null;
  monitorIds: string[];
  /** A one-off window's bounds (ISO); null for a recurring one. */
  startsAt: string | null;
  endsAt: string | null;
  /** A recurring window: a 5-field cron of its starts, read in `timezone`, each lasting `durationMinutes`. */
  cron: string | null;
  durationMinutes: number | null;
  timezone: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One stretch of time a window covers, epoch ms, end excluded. */
export interface Span {
  start: number;
  end: number;
}

/** One occurrence of a window, as the status pages read it (the shape is shared with them). */
export interface MaintenanceOccurrence {
  window_id: string;
  title: string;
  description: string | null;
  monitor_ids: string[];
  starts_at: string;
  ends_at: string;
}

export const MAX_DURATION_MINUTES = 10_080;
const MINUTE_MS = 60_000;

/**
 * When a window happens, ready to ask: a recurring window's cron is parsed once (the index
 * asks on every check, so nothing is parsed there).
 */
export type WindowTimes =
  | { kind: "once"; span: Span }
  | { kind: "recurring"; cron: Cron; durationMs: number; memo?: NextStart };

/** The last search: the first start after `from` is `start` (null: none ever again). */
interface NextStart {
  from: number;
  start: number | null;
}

export function timesOf(window: MaintenanceWindow): WindowTimes {
  if (window.cron !== null) {
    return {
      kind: "recurring",
      cron: new Cron(window.cron, { timezone: window.timezone ?? "UTC", paused: true }),
      durationMs: (window.durationMinutes ?? 0) * MINUTE_MS,
    };
  }
  return {
    kind: "once",
    span: { start: Date.parse(window.startsAt ?? ""), end: Date.parse(window.endsAt ?? "") },
  };
}

/** The occurrences covering `at` (a recurring window may overlap itself), earliest first. */
export function activeAt(times: WindowTimes, at: number, limit = 5): Span[] {
  if (times.kind === "once") {
    return times.span.start <= at && at < times.span.end ? [times.span] : [];
  }
  // An occurrence covers `at` when it started in (at − duration, at].
  return startsBetween(times, at - times.durationMs, at, limit);
}

/** Whether `at` falls in any occurrence: the hot path of every check. */
export function coversAt(times: WindowTimes, at: number): boolean {
  if (times.kind === "once") return times.span.start <= at && at < times.span.end;
  const from = at - times.durationMs;
  // A cron search can take a millisecond (a rare pattern walks years ahead) and checks ask
  // constantly, moving forward: while `from` stays between the last search's origin and the
  // start it found, no start lies in between, so that start is still the answer.
  const memo = times.memo;
  let start: number | null;
  if (memo && memo.from <= from && (memo.start === null || from < memo.start)) {
    start = memo.start;
  } else {
    start = times.cron.nextRun(new Date(from))?.getTime() ?? null;
    times.memo = { from, start };
  }
  return start !== null && start <= at;
}

/** Occurrences starting in (from, to], earliest first, at most `limit`. */
export function startsBetween(times: WindowTimes, from: number, to: number, limit: number): Span[] {
  if (times.kind === "once") {
    const { start } = times.span;
    return from < start && start <= to ? [times.span] : [];
  }
  const spans: Span[] = [];
  let previous = new Date(from);
  while (spans.length < limit) {
    const next = times.cron.nextRun(previous);
    if (next === null || next.getTime() > to) break;
    spans.push({ start: next.getTime(), end: next.getTime() + times.durationMs });
    previous = next;
  }
  return spans;
}

/** Occurrences that ended in [from, to] (an end is excluded from its span), latest first, at most `limit`. */
export function endedBetween(times: WindowTimes, from: number, to: number, limit: number): Span[] {
  if (times.kind === "once") {
    const { end } = times.span;
    return from <= end && end <= to ? [times.span] : [];
  }
  // Ended before `to` ⇔ started at or before to − duration.
  const latest = to - times.durationMs;
  const spans: Span[] = [];
  const first = times.cron.nextRun(new Date(latest - 1));
  if (first !== null && first.getTime() === latest) {
    spans.push({ start: latest, end: to });
  }
  for (const start of times.cron.previousRuns(limit, new Date(latest))) {
    spans.push({ start: start.getTime(), end: start.getTime() + times.durationMs });
  }
  return spans.filter((span) => span.end >= from && span.end <= to).slice(0, limit);
}

/** The occurrences not yet over at `now` (the one under way first), at most `count`. */
export function nextOccurrences(times: WindowTimes, now: number, count: number): Span[] {
  const current = activeAt(times, now, count);
  return [...current, ...startsBetween(times, now, Number.MAX_SAFE_INTEGER, count)].slice(0, count);
}

export const occurrenceOf = (
  window: MaintenanceWindow,
  span: Span,
  monitorIds: string[],
): MaintenanceOccurrence => ({
  window_id: window.id,
  title: window.title,
  description: window.description,
  monitor_ids: monitorIds,
  starts_at: new Date(span.start).toISOString(),
  ends_at: new Date(span.end).toISOString(),
});
