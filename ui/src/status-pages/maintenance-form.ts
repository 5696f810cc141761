import { fromLocalInput, toLocalInput } from "../kit/time-input.ts";
import type { MaintenanceWindow } from "./status-pages.api.ts";

/** The window form as typed: times in the browser's local wall time, the rest as text. */
export interface WindowDraft {
  title: string;
  description: string;
  recurring: boolean;
  starts_at: string;
  ends_at: string;
  cron: string;
  duration_minutes: string;
  timezone: string;
  monitor_ids: string[];
}

export const localZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export function windowDraft(window?: MaintenanceWindow): WindowDraft {
  return {
    title: window?.title ?? "",
    description: window?.description ?? "",
    recurring: Boolean(window?.cron),
    starts_at: toLocalInput(window?.starts_at ?? ""),
    ends_at: toLocalInput(window?.ends_at ?? ""),
    cron: window?.cron ?? "",
    duration_minutes: window?.duration_minutes ? String(window.duration_minutes) : "60",
    timezone: window?.timezone ?? localZone(),
    monitor_ids: window?.monitor_ids ?? [],
  };
}

/**
 * The request body: a one-off window sends its local times as ISO UTC and clears any cron; a
 * recurring one sends cron, duration and zone. A time left empty or unreadable is sent as typed,
 * so the server names the field.
 */
export function windowBody(draft: WindowDraft): Record<string, unknown> {
  const common = {
    title: draft.title,
    description: draft.description.trim() === "" ? null : draft.description,
    monitor_ids: draft.monitor_ids,
  };
  if (draft.recurring) {
    const minutes = draft.duration_minutes.trim();
    return {
      ...common,
      cron: draft.cron.trim(),
      duration_minutes: /^\d+$/.test(minutes) ? Number(minutes) : minutes,
      timezone: draft.timezone,
    };
  }
  const time = (value: string) => fromLocalInput(value) || value;
  return { ...common, cron: null, starts_at: time(draft.starts_at), ends_at: time(draft.ends_at) };
}

/** The window's state in words: under way, the next start, or over. */
export function windowState(window: MaintenanceWindow): "active" | "upcoming" | "ended" {
  if (window.active) return "active";
  return window.next_occurrences.length > 0 ? "upcoming" : "ended";
}

/** Every IANA zone the browser knows, the current one first; UTC when it lists none. */
export function timeZones(current: string): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  const all = intl.supportedValuesOf?.("timeZone") ?? [];
  return [current, ...["UTC", ...all].filter((zone) => zone !== current)];
}
