import { bucketsOf, type Monitor, p95Of, shownStatus, TIME } from "./monitors.model.ts";
import type { RollupSums } from "./monitors.store.ts";

/** Where the rollup figures come from: a monitor's buckets since a bucket start. */
export interface RollupReads {
  sums(monitorId: string, period: "hour" | "day", from: number): Promise<RollupSums>;
  hourlyHistogram(
    monitorId: string,
    from: number,
  ): Promise<{ histogram: number[]; slowest: number | null }>;
}

/**
 * The API's monitor (decisions.md §9, §13, §15): settings flat beside the figures.
 * `inMaintenance`: a maintenance window covers it now.
 */
export async function monitorView(
  monitor: Monitor,
  now: number,
  reads: RollupReads,
  baseUrl: string,
  inMaintenance = false,
) {
  const { hour, day } = bucketsOf(now);
  const since = hour - 23 * TIME.HOUR_MS;
  const last24h = await reads.sums(monitor.id, "hour", since);
  const daily = async (days: number) =>
    uptimeOf(await reads.sums(monitor.id, "day", day - (days - 1) * TIME.DAY_MS));
  const { histogram, slowest } = await reads.hourlyHistogram(monitor.id, since);
  return {
    id: monitor.id,
    name: monitor.name,
    type: monitor.type,
    ...monitor.settings,
    interval_seconds: monitor.intervalSeconds,
    timeout_seconds: monitor.timeoutSeconds,
    retries: monitor.retries,
    parent_id: monitor.parentId,
    paused: monitor.paused,
    status: shownStatus(monitor, inMaintenance),
    ...(monitor.type === "push" && monitor.pushToken
      ? { push_url: `${baseUrl}/api/push/${monitor.pushToken}` }
      : {}),
    last_checked_at: monitor.lastCheckedAt,
    last_response_ms: monitor.lastResponseMs,
    uptime_24h: uptimeOf(last24h),
    uptime_7d: await daily(7),
    uptime_30d: await daily(30),
    uptime_90d: await daily(90),
    avg_response_ms:
      last24h.responseCount === 0 ? null : Math.round(last24h.responseSum / last24h.responseCount),
    p95_response_ms: p95Of(histogram, slowest),
    created_at: monitor.createdAt,
    updated_at: monitor.updatedAt,
  };
}

export type MonitorView = Awaited<ReturnType<typeof monitorView>>;

/**
 * Up and degraded checks count as up; checks inside maintenance windows count not at all. Null
 * without a counted check. Percent, two decimals.
 */
export function uptimeOf(sums: Pick<RollupSums, "checks" | "up" | "degraded" | "maintenance">) {
  const counted = sums.checks - sums.maintenance;
  if (counted <= 0) return null;
  return Math.round(((sums.up + sums.degraded) / counted) * 10_000) / 100;
}
