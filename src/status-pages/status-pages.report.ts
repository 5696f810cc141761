// The SLA report of a whole status page: per UTC day, all its monitors together, from the
// monitors' daily rollups (lent through a port) and the page's incidents. Pure.
import type { Incident } from "./status-pages.model.ts";
import { csvCell } from "./status-pages.subscribers.model.ts";

const DAY_MS = 86_400_000;
const DAY_MINUTES = 1440;

/** One monitor's day as the monitors room lends it: `checks` leaves maintenance checks out. */
export interface DayBucket {
  start: number;
  checks: number;
  up: number;
  down: number;
  degraded: number;
  maintenance: number;
}

export interface ReportMonitor {
  monitor_id: string;
  name: string;
  buckets: readonly DayBucket[];
}

interface Sums {
  checks: number;
  good: number;
  down: number;
  maintenance: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const uptime = (s: Sums) => (s.checks > 0 ? round2((s.good / s.checks) * 100) : null);

/**
 * Minutes estimated from the share of checks, as the page's own bars do: the day's failed share
 * of counted checks, and its share of checks inside maintenance windows.
 */
function figures(s: Sums) {
  const all = s.checks + s.maintenance;
  return {
    uptime_percent: uptime(s),
    downtime_minutes: s.checks > 0 ? round2((s.down / s.checks) * DAY_MINUTES) : 0,
    maintenance_minutes: all > 0 ? round2((s.maintenance / all) * DAY_MINUTES) : 0,
    checks: s.checks,
  };
}

const sumsOf = (b: DayBucket): Sums => ({
  checks: b.checks,
  good: b.up + b.degraded,
  down: b.down,
  maintenance: b.maintenance,
});
const add = (a: Sums, b: Sums): Sums => ({
  checks: a.checks + b.checks,
  good: a.good + b.good,
  down: a.down + b.down,
  maintenance: a.maintenance + b.maintenance,
});
const ZERO: Sums = { checks: 0, good: 0, down: 0, maintenance: 0 };
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** An incident open at any moment of the day [start, start + 1 day). */
const touches = (incident: Incident, start: number) =>
  Date.parse(incident.createdAt) < start + DAY_MS &&
  (incident.resolvedAt === null || Date.parse(incident.resolvedAt) >= start);

export function pageReport(
  range: { from: number; to: number },
  monitors: readonly ReportMonitor[],
  incidents: readonly Incident[],
) {
  const byDay = monitors.map((m) => new Map(m.buckets.map((b) => [b.start, sumsOf(b)])));
  const days = [];
  let total = ZERO;
  for (let start = range.from; start <= range.to; start += DAY_MS) {
    let day = ZERO;
    let worst: { monitor_id: string; name: string; uptime_percent: number } | null = null;
    monitors.forEach((monitor, i) => {
      const sums = byDay[i]?.get(start);
      if (!sums) return;
      day = add(day, sums);
      const percent = uptime(sums);
      if (percent !== null && (worst === null || percent < worst.uptime_percent)) {
        worst = { monitor_id: monitor.monitor_id, name: monitor.name, uptime_percent: percent };
      }
    });
    total = add(total, day);
    days.push({
      date: dateOf(start),
      ...figures(day),
      worst_monitor: worst as { monitor_id: string; name: string; uptime_percent: number } | null,
      incidents: incidents
        .filter((incident) => touches(incident, start))
        .map((incident) => ({
          id: incident.id,
          title: incident.title,
          impact: incident.impact,
          status: incident.status,
          created_at: incident.createdAt,
          resolved_at: incident.resolvedAt,
        })),
    });
  }
  const totals = figures(total);
  return {
    from: dateOf(range.from),
    to: dateOf(range.to),
    monitors: monitors.map((m) => ({ monitor_id: m.monitor_id, name: m.name })),
    days,
    overall: {
      ...totals,
      // Summed per day: the share estimate above is per day.
      downtime_minutes: round2(days.reduce((n, d) => n + d.downtime_minutes, 0)),
      maintenance_minutes: round2(days.reduce((n, d) => n + d.maintenance_minutes, 0)),
    },
  };
}

export type PageReport = ReturnType<typeof pageReport>;

/** The report as CSV, one row per day then the overall row; names cannot run as spreadsheet formulas. */
export function pageReportCsv(report: PageReport): string {
  const header =
    "date,uptime_percent,downtime_minutes,maintenance_minutes,checks,worst_monitor,worst_monitor_uptime_percent,incidents";
  const rows = report.days.map((d) =>
    [
      d.date,
      d.uptime_percent ?? "",
      d.downtime_minutes,
      d.maintenance_minutes,
      d.checks,
      csvCell(d.worst_monitor?.name ?? null),
      d.worst_monitor?.uptime_percent ?? "",
      csvCell(d.incidents.map((i) => i.title).join("; ")),
    ].join(","),
  );
  const t = report.overall;
  const total = [
    "overall",
    t.uptime_percent ?? "",
    t.downtime_minutes,
    t.maintenance_minutes,
    t.checks,
    "",
    "",
    "",
  ];
  return `${[header, ...rows, total.join(",")].join("\r\n")}\r\n`;
}
