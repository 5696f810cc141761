import {
  activeAt,
  coversAt,
  endedBetween,
  type MaintenanceOccurrence,
  type MaintenanceWindow,
  occurrenceOf,
  startsBetween,
  timesOf,
  type WindowTimes,
} from "./maintenance.model.ts";

interface Entry {
  window: MaintenanceWindow;
  times: WindowTimes;
}

const DAY_MS = 86_400_000;
/** How far back `recent` looks (decisions.md §15: status pages show the last 30 days). */
const RECENT_DAYS = 30;
/** At most this many occurrences per window and kind: an every-minute window stays cheap. */
const PER_WINDOW = 20;

/** Where the index reads windows: all of them once, then one organization's after its writes. */
export interface WindowSource {
  all(): MaintenanceWindow[];
  list(organizationId: string): MaintenanceWindow[];
}

/**
 * Every window of every organization in memory, by monitor and by organization: monitors ask
 * on every check, so a check costs map lookups (and a cron step), never SQL. A write marks its
 * organization stale, and the next question reloads that organization's windows alone: one
 * organization's writes never cost a rebuild of everyone's.
 */
export function createMaintenanceIndex(source: WindowSource) {
  let byMonitor: Map<string, Entry[]> | null = null;
  const byOrganization = new Map<string, Entry[]>();
  const stale = new Set<string>();

  const add = (monitors: Map<string, Entry[]>, window: MaintenanceWindow) => {
    const entry = { window, times: timesOf(window) };
    for (const id of window.monitorIds) monitors.set(id, [...(monitors.get(id) ?? []), entry]);
    const org = byOrganization.get(window.organizationId) ?? [];
    org.push(entry);
    byOrganization.set(window.organizationId, org);
  };
  const drop = (monitors: Map<string, Entry[]>, organizationId: string) => {
    for (const entry of byOrganization.get(organizationId) ?? []) {
      for (const id of entry.window.monitorIds) {
        const kept = (monitors.get(id) ?? []).filter((other) => other !== entry);
        if (kept.length > 0) monitors.set(id, kept);
        else monitors.delete(id);
      }
    }
    byOrganization.delete(organizationId);
  };
  const monitors = () => {
    if (!byMonitor) {
      const built = new Map<string, Entry[]>();
      byOrganization.clear();
      stale.clear();
      for (const window of source.all()) add(built, window);
      byMonitor = built;
    }
    for (const organizationId of stale) {
      drop(byMonitor, organizationId);
      for (const window of source.list(organizationId)) add(byMonitor, window);
    }
    stale.clear();
    return byMonitor;
  };

  return {
    /** A window of the organization was written or deleted: the next question reloads it. */
    invalidate(organizationId: string): void {
      stale.add(organizationId);
    },
    inMaintenance(monitorId: string, at: Date): boolean {
      const entries = monitors().get(monitorId);
      if (!entries) return false;
      const ms = at.getTime();
      return entries.some((entry) => coversAt(entry.times, ms));
    },
    maintenanceFor(organizationId: string, monitorIds: string[], now: Date, horizonDays: number) {
      monitors();
      const wanted = new Set(monitorIds);
      const at = now.getTime();
      const active: MaintenanceOccurrence[] = [];
      const upcoming: MaintenanceOccurrence[] = [];
      const recent: MaintenanceOccurrence[] = [];
      for (const { window, times } of byOrganization.get(organizationId) ?? []) {
        // A status page learns only of its own monitors.
        const affected = window.monitorIds.filter((id) => wanted.has(id));
        if (affected.length === 0) continue;
        const of = (spans: { start: number; end: number }[], into: MaintenanceOccurrence[]) => {
          for (const span of spans) into.push(occurrenceOf(window, span, affected));
        };
        of(activeAt(times, at, PER_WINDOW), active);
        of(startsBetween(times, at, at + horizonDays * DAY_MS, PER_WINDOW), upcoming);
        of(endedBetween(times, at - RECENT_DAYS * DAY_MS, at, PER_WINDOW), recent);
      }
      const byStart = (a: MaintenanceOccurrence, b: MaintenanceOccurrence) =>
        a.starts_at.localeCompare(b.starts_at);
      return {
        active: active.sort(byStart),
        upcoming: upcoming.sort(byStart),
        recent: recent.sort((a, b) => b.ends_at.localeCompare(a.ends_at)),
      };
    },
  };
}

export type MaintenanceIndex = ReturnType<typeof createMaintenanceIndex>;
