import type { Incident, PageComponent, PageMonitor, StatusPage } from "./status-pages.model.ts";
import type { MaintenanceOccurrence, StatusPagesReads } from "./status-pages.ports.ts";
import { presentIncident } from "./status-pages.present.ts";

export const HISTORY_DAYS = 90;
/** Resolved incidents stay on the page this long. */
export const INCIDENT_HISTORY_DAYS = 14;
const DAY_MS = 86_400_000;

export type ItemState = "up" | "degraded" | "down" | "maintenance" | "pending" | "paused";
export type OverallState =
  | "operational"
  | "degraded"
  | "partial_outage"
  | "major_outage"
  | "maintenance";

export const STATE_LABELS: Record<ItemState, string> = {
  up: "Operational",
  degraded: "Degraded performance",
  down: "Down",
  maintenance: "Under maintenance",
  pending: "No data yet",
  paused: "Paused",
};

export const OVERALL_LABELS: Record<OverallState, string> = {
  operational: "All systems operational",
  degraded: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage",
  maintenance: "Under maintenance",
};

/** One UTC day of an item: a share (percent) of good checks or deliveries, null without data. */
export interface DayBar {
  date: string;
  /** Percent up (monitors) or delivered (components); null: no data that day. */
  percent: number | null;
  /** Monitors: minutes down that day, estimated from the share of failed checks. */
  downtime_minutes?: number | null;
}

export interface SnapshotItem {
  kind: "monitor" | "bridge" | "destination";
  id: string;
  name: string;
  status: ItemState;
  status_label: string;
  /** Percent over the 90 days (monitors: uptime; components: delivered); null without data. */
  percent_90d: number | null;
  days: DayBar[];
}

export interface Snapshot {
  name: string;
  slug: string;
  description: string | null;
  logo_url: string | null;
  primary_color: string;
  show_service_branding: boolean;
  status: OverallState;
  status_label: string;
  groups: { name: string | null; items: SnapshotItem[] }[];
  incidents: {
    active: ReturnType<typeof presentIncident>[];
    resolved: ReturnType<typeof presentIncident>[];
  };
  maintenance: { active: MaintenanceOccurrence[]; upcoming: MaintenanceOccurrence[] };
  updated_at: string;
}

export interface SnapshotInput {
  page: StatusPage;
  monitors: PageMonitor[];
  components: PageComponent[];
  incidents: Incident[];
  reads: StatusPagesReads;
  now: number;
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const round2 = (n: number) => Math.round(n * 100) / 100;

/** The 90 UTC days ending today, oldest first: each day's start and its date. */
export function historyDays(now: number): { start: number; date: string }[] {
  const today = now - (now % DAY_MS);
  return Array.from({ length: HISTORY_DAYS }, (_, i) => {
    const start = today - (HISTORY_DAYS - 1 - i) * DAY_MS;
    return { start, date: dateOf(start) };
  });
}

type HistoryDays = ReturnType<typeof historyDays>;

async function monitorItem(
  input: SnapshotInput,
  m: PageMonitor,
  inMaintenance: Set<string>,
  history: HistoryDays,
): Promise<SnapshotItem | null> {
  // The summary and the daily buckets are all a page needs: no per-monitor figure queries.
  const monitor = await input.reads.monitorSummary(input.page.organizationId, m.monitorId);
  if (!monitor) return null;
  const daily = await input.reads.dailyBuckets(m.monitorId, HISTORY_DAYS);
  const buckets = new Map(daily.map((b) => [b.start, b]));
  let checks = 0;
  let good = 0;
  for (const b of daily) {
    checks += b.checks;
    good += b.up + b.degraded;
  }
  const today = input.now - (input.now % DAY_MS);
  const minutesToday = Math.floor((input.now % DAY_MS) / 60_000);
  const days = history.map(({ start, date }): DayBar => {
    const bucket = buckets.get(start);
    if (!bucket || bucket.checks === 0) return { date, percent: null, downtime_minutes: null };
    const minutes = start === today ? minutesToday : 1440;
    return {
      date,
      percent: round2(((bucket.up + bucket.degraded) / bucket.checks) * 100),
      downtime_minutes: Math.round((bucket.down / bucket.checks) * minutes),
    };
  });
  let status = monitor.status as ItemState;
  if (inMaintenance.has(m.monitorId) && status !== "paused") status = "maintenance";
  return {
    kind: "monitor",
    id: m.monitorId,
    name: m.displayName ?? monitor.name,
    status,
    status_label: STATE_LABELS[status] ?? status,
    // As the monitor's own uptime_90d: up and degraded checks count as up.
    percent_90d: checks === 0 ? null : round2((good / checks) * 100),
    days,
  };
}

async function componentItem(
  input: SnapshotInput,
  c: PageComponent,
  history: HistoryDays,
): Promise<SnapshotItem | null> {
  const ref = c.kind === "bridge" ? { bridge_id: c.targetId } : { destination_id: c.targetId };
  const health = await input.reads.deliveryHealth?.(input.page.organizationId, ref, HISTORY_DAYS);
  if (!health) return null;
  const byDate = new Map(health.days.map((d) => [d.date, d]));
  let attempted = 0;
  let delivered = 0;
  const days = history.map(({ date }): DayBar => {
    const day = byDate.get(date);
    if (!day || day.attempted === 0) return { date, percent: null };
    attempted += day.attempted;
    delivered += day.delivered;
    return { date, percent: round2((day.delivered / day.attempted) * 100) };
  });
  return {
    kind: c.kind,
    id: c.id,
    name: c.displayName ?? health.name,
    status: health.state,
    status_label: STATE_LABELS[health.state],
    percent_90d: attempted === 0 ? null : round2((delivered / attempted) * 100),
    days,
  };
}

const IMPACT_STATE: Record<string, OverallState | null> = {
  none: null,
  minor: "degraded",
  major: "partial_outage",
  critical: "major_outage",
};
const SEVERITY: OverallState[] = [
  "operational",
  "maintenance",
  "degraded",
  "partial_outage",
  "major_outage",
];
const worse = (a: OverallState, b: OverallState) =>
  SEVERITY.indexOf(a) >= SEVERITY.indexOf(b) ? a : b;

/** The banner: the worst of what the items say and what open incidents declare. */
export function overallOf(items: SnapshotItem[], open: Incident[]): OverallState {
  const counted = items.filter((i) => i.status !== "paused" && i.status !== "pending");
  const down = counted.filter((i) => i.status === "down").length;
  let state: OverallState = "operational";
  if (counted.some((i) => i.status === "maintenance")) state = "maintenance";
  if (counted.some((i) => i.status === "degraded")) state = worse(state, "degraded");
  if (down > 0) state = worse(state, down === counted.length ? "major_outage" : "partial_outage");
  for (const incident of open) state = worse(state, IMPACT_STATE[incident.impact] ?? "operational");
  return state;
}

/** What a public page shows, as data: the HTML, the JSON, the badge and the feed all read it. */
export async function buildSnapshot(input: SnapshotInput): Promise<Snapshot> {
  const { page, now } = input;
  const maintenance = input.reads.maintenanceFor?.(
    page.organizationId,
    input.monitors.map((m) => m.monitorId),
    new Date(now),
    HISTORY_DAYS,
  ) ?? { active: [], upcoming: [], recent: [] };
  const inMaintenance = new Set(maintenance.active.flatMap((w) => w.monitor_ids));
  const entries: { order: number; group: string | null; item: SnapshotItem }[] = [];
  const history = historyDays(now);
  for (const m of input.monitors) {
    const item = await monitorItem(input, m, inMaintenance, history);
    if (item) entries.push({ order: m.displayOrder, group: m.group, item });
  }
  for (const c of input.components) {
    const item = await componentItem(input, c, history);
    if (item) entries.push({ order: c.displayOrder, group: c.group, item });
  }
  entries.sort((a, b) => a.order - b.order);
  const known = new Set(page.groups.map((g) => g.name));
  const groups = [
    { name: null as string | null, order: Number.NEGATIVE_INFINITY },
    ...[...page.groups].sort((a, b) => a.order - b.order),
  ]
    .map((g) => ({
      name: g.name,
      items: entries
        .filter((e) => (e.group !== null && known.has(e.group) ? e.group : null) === g.name)
        .map((e) => e.item),
    }))
    .filter((g) => g.items.length > 0);
  const open = input.incidents.filter((i) => i.resolvedAt === null);
  const since = new Date(now - INCIDENT_HISTORY_DAYS * DAY_MS).toISOString();
  const resolved = input.incidents.filter((i) => i.resolvedAt !== null && i.resolvedAt >= since);
  const status = overallOf(
    entries.map((e) => e.item),
    open,
  );
  return {
    name: page.name,
    slug: page.slug,
    description: page.description,
    logo_url: page.logoUrl,
    primary_color: page.primaryColor,
    show_service_branding: page.showServiceBranding,
    status,
    status_label: OVERALL_LABELS[status],
    groups,
    incidents: { active: open.map(presentIncident), resolved: resolved.map(presentIncident) },
    maintenance: { active: maintenance.active, upcoming: maintenance.upcoming },
    updated_at: new Date(now).toISOString(),
  };
}
