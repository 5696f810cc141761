import { activeAt, type MaintenanceWindow, nextOccurrences, timesOf } from "./maintenance.model.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** The API's window (decisions.md §15), with whether it covers `now` and what comes next. */
export function windowView(window: MaintenanceWindow, now: number) {
  const times = timesOf(window);
  return {
    id: window.id,
    title: window.title,
    description: window.description,
    monitor_ids: window.monitorIds,
    starts_at: window.startsAt,
    ends_at: window.endsAt,
    cron: window.cron,
    duration_minutes: window.durationMinutes,
    timezone: window.timezone,
    active: activeAt(times, now, 1).length > 0,
    next_occurrences: nextOccurrences(times, now, 3).map((span) => ({
      starts_at: iso(span.start),
      ends_at: iso(span.end),
    })),
    created_at: window.createdAt,
    updated_at: window.updatedAt,
  };
}

export type WindowView = ReturnType<typeof windowView>;
