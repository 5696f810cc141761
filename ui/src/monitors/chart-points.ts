/** A monitor's buckets as chart points: one per hour or day of the range, gaps as null. */
import type { ChartPoint } from "../kit/line-chart.tsx";
import type { Range, RollupBucket } from "./monitors.api.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SLOTS: Record<Range, { size: number; count: number }> = {
  "24h": { size: HOUR, count: 24 },
  "7d": { size: HOUR, count: 7 * 24 },
  "30d": { size: DAY, count: 30 },
};

const pad = (n: number) => String(n).padStart(2, "0");
/** Labels in UTC, as the buckets are: "14:00", "11-03 14:00", "2026-11-03". */
function label(at: number, range: Range): string {
  const d = new Date(at);
  const day = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const hour = `${pad(d.getUTCHours())}:00`;
  if (range === "24h") return `${hour} UTC`;
  if (range === "7d") return `${day.slice(5)} ${hour} UTC`;
  return day;
}

export function chartPoints(buckets: RollupBucket[], range: Range, now: number): ChartPoint[] {
  const { size, count } = SLOTS[range];
  const last = now - (now % size);
  const byStart = new Map(buckets.map((b) => [Date.parse(b.start), b.avg_response_ms]));
  return Array.from({ length: count }, (_, i) => {
    const at = last - (count - 1 - i) * size;
    return { label: label(at, range), value: byStart.get(at) ?? null };
  });
}
