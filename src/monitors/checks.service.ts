import { type GenericPage, genericPage, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import type { Clock } from "../shared/clock.ts";
import type { Schedule } from "./check-outcome.service.ts";
import { bucketsOf, type Monitor, type ProbeResult, TIME } from "./monitors.model.ts";
import type {
  CheckView,
  MonitorsStore,
  RollupBucketView,
  StateEventView,
} from "./monitors.store.ts";

export interface ChecksDeps {
  store: MonitorsStore;
  clock: Clock;
  probe(monitor: Monitor): Promise<ProbeResult>;
  /**
   * Stores one outcome as one unit (check-outcome.service.ts): synchronous on SQLite, where
   * the scheduled path calls recordOutcome itself; a promise on PostgreSQL.
   */
  record(
    monitor: Monitor,
    result: ProbeResult,
    schedule: Schedule,
  ): CheckView | null | Promise<CheckView | null>;
}

/** Runs a check now, outside the schedule (`POST …/check`). */
export async function checkNow(monitor: Monitor, deps: ChecksDeps): Promise<CheckView> {
  const result = await deps.probe(monitor);
  return (await deps.record(monitor, result, { kind: "none" })) as CheckView;
}

/** A push arrived: `down` reports a failure with its message, anything else is up. */
export async function recordPush(
  monitor: Monitor,
  report: { status?: string; msg?: string; ping?: string },
  deps: Pick<ChecksDeps, "record">,
): Promise<void> {
  const failed = report.status === "down";
  const ping = Number(report.ping);
  await deps.record(
    monitor,
    {
      status: failed ? "down" : "up",
      statusCode: null,
      responseTimeMs: Number.isFinite(ping) && ping >= 0 ? Math.round(ping) : null,
      error: failed ? (report.msg?.slice(0, 500) ?? "reported down") : null,
      tlsDaysRemaining: null,
    },
    { kind: "push" },
  );
}

export async function listChecks(
  monitorId: string,
  page: PageRequest,
  deps: Pick<ChecksDeps, "store">,
): Promise<GenericPage<CheckView>> {
  const rows = await deps.store.checksPage(monitorId, page.pageSize, page.offset);
  return genericPage(rows, pageInfo(page, await deps.store.checksCount(monitorId)));
}

export const listStateEvents = (
  monitorId: string,
  deps: Pick<ChecksDeps, "store">,
): Promise<StateEventView[]> => deps.store.events(monitorId);

/** The ranges a chart can ask for, and the buckets that draw them. */
export const ROLLUP_RANGES = {
  "24h": { period: "hour", buckets: 24 },
  "7d": { period: "hour", buckets: 7 * 24 },
  "30d": { period: "day", buckets: 30 },
} as const;
export type RollupRange = keyof typeof ROLLUP_RANGES;

/** A monitor's buckets over `range`, oldest first; hours or days without checks are left out. */
export function listRollups(
  monitorId: string,
  range: RollupRange,
  deps: Pick<ChecksDeps, "store" | "clock">,
): Promise<RollupBucketView[]> {
  const { period, buckets } = ROLLUP_RANGES[range];
  const { hour, day } = bucketsOf(deps.clock.now());
  const from =
    period === "hour" ? hour - (buckets - 1) * TIME.HOUR_MS : day - (buckets - 1) * TIME.DAY_MS;
  return deps.store.buckets(monitorId, period, from);
}

/**
 * The average response time of each of the last 24 hours, oldest first (null for an hour
 * without a timed check): the list's sparklines, read from the hourly buckets with the list.
 */
export async function responseSparkline(
  monitorId: string,
  deps: Pick<ChecksDeps, "store" | "clock">,
): Promise<(number | null)[]> {
  const { hour } = bucketsOf(deps.clock.now());
  const from = hour - 23 * TIME.HOUR_MS;
  const byStart = new Map(
    (await listRollups(monitorId, "24h", deps)).map((b) => [
      Date.parse(b.start),
      b.avg_response_ms,
    ]),
  );
  return Array.from({ length: 24 }, (_, i) => byStart.get(from + i * TIME.HOUR_MS) ?? null);
}
