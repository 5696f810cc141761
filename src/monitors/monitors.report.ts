import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import type { DailyBucket } from "./checks.repo.ts";
import { TIME } from "./monitors.model.ts";
import { uptimeOf } from "./monitors.present.ts";

export const MAX_REPORT_DAYS = 400;
const DEFAULT_REPORT_DAYS = 30;
const DAY_MINUTES = 1440;
const REPORT_FORMATS = ["json", "csv"] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** An SLA report's request, checked: whole UTC days, `from` and `to` included. */
export interface ReportRange {
  from: number;
  to: number;
  format: ReportFormat;
}

/** One UTC day of the report (or the whole range, without `date`). */
export interface ReportFigures {
  uptime_percent: number | null;
  downtime_minutes: number;
  maintenance_minutes: number;
  checks: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight UTC of a `YYYY-MM-DD` that names a real day; null otherwise. */
function dayStart(text: string): number | null {
  const match = DATE.exec(text);
  if (!match) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().slice(0, 10) === text ? ms : null;
}

const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Checks `?from=&to=&format=`: `to` defaults to today (UTC), `from` to 30 days up to `to`,
 * `format` to json; at most 400 days. Every problem is a 422 naming its parameter.
 */
export function parseReportQuery(
  query: { from?: string; to?: string; format?: string },
  now: number,
): ReportRange {
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const today = now - (now % TIME.DAY_MS);
  const to = query.to === undefined ? today : dayStart(query.to);
  if (to === null) fail("to", "must be a date such as 2026-03-31 (YYYY-MM-DD)");
  const from =
    query.from === undefined
      ? (to ?? today) - (DEFAULT_REPORT_DAYS - 1) * TIME.DAY_MS
      : dayStart(query.from);
  if (from === null) fail("from", "must be a date such as 2026-03-01 (YYYY-MM-DD)");
  if (from !== null && to !== null) {
    if (from > to) fail("to", "must not be before from");
    else if ((to - from) / TIME.DAY_MS + 1 > MAX_REPORT_DAYS) {
      fail("to", `must be at most ${MAX_REPORT_DAYS} days from from (both included)`);
    }
  }
  const format = (query.format ?? "json") as ReportFormat;
  if (!REPORT_FORMATS.includes(format)) fail("format", "must be json or csv");
  if (Object.keys(errors).length > 0 || from === null || to === null) {
    throw validationFailed(errors);
  }
  return { from, to, format };
}

const minutes = (n: number) => Math.round(n * 100) / 100;

/**
 * Per UTC day from the daily buckets alone (raw checks may be gone by then). Minutes are
 * estimated as checks × the monitor's interval: a monitor checked on schedule covers its day.
 */
function figuresOf(bucket: DailyBucket | undefined, intervalMinutes: number): ReportFigures {
  if (!bucket) {
    return { uptime_percent: null, downtime_minutes: 0, maintenance_minutes: 0, checks: 0 };
  }
  return {
    uptime_percent: uptimeOf(bucket),
    downtime_minutes: minutes(Math.min(DAY_MINUTES, bucket.down * intervalMinutes)),
    maintenance_minutes: minutes(Math.min(DAY_MINUTES, bucket.maintenance * intervalMinutes)),
    checks: bucket.checks,
  };
}

/** Every day of the range (a day without checks shows null uptime), and the whole range's figures (`overall`: `total` names counts in Weir's answers). */
export function slaReport(
  range: ReportRange,
  buckets: readonly DailyBucket[],
  intervalSeconds: number,
) {
  const byStart = new Map(buckets.map((bucket) => [bucket.start, bucket]));
  const intervalMinutes = intervalSeconds / 60;
  const days: (ReportFigures & { date: string })[] = [];
  const sums = { checks: 0, up: 0, degraded: 0, maintenance: 0 };
  let downtime = 0;
  let maintenance = 0;
  for (let start = range.from; start <= range.to; start += TIME.DAY_MS) {
    const bucket = byStart.get(start);
    const figures = figuresOf(bucket, intervalMinutes);
    days.push({ date: dateOf(start), ...figures });
    downtime += figures.downtime_minutes;
    maintenance += figures.maintenance_minutes;
    if (bucket) {
      sums.checks += bucket.checks;
      sums.up += bucket.up;
      sums.degraded += bucket.degraded;
      sums.maintenance += bucket.maintenance;
    }
  }
  const overall: ReportFigures = {
    uptime_percent: uptimeOf(sums),
    downtime_minutes: minutes(downtime),
    maintenance_minutes: minutes(maintenance),
    checks: sums.checks,
  };
  return { from: dateOf(range.from), to: dateOf(range.to), days, overall };
}

export type SlaReport = ReturnType<typeof slaReport>;

/** The report as CSV: a header row, one row per day, then an `overall` row. */
export function reportCsv(report: SlaReport): string {
  const row = (date: string, f: ReportFigures) =>
    [date, f.uptime_percent ?? "", f.downtime_minutes, f.maintenance_minutes, f.checks].join(",");
  return [
    "date,uptime_percent,downtime_minutes,maintenance_minutes,checks",
    ...report.days.map((day) => row(day.date, day)),
    row("overall", report.overall),
  ]
    .join("\r\n")
    .concat("\r\n");
}
