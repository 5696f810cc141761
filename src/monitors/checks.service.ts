import type { MonitorChange } from "../alerts/alerts.model.ts";
import { type GenericPage, genericPage, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { ChecksRepo, CheckView, RollupBucketView, StateEventView } from "./checks.repo.ts";
import type { DependenciesRepo } from "./dependencies.repo.ts";
import { alertsAfterDependencies } from "./dependencies.service.ts";
import { maintenanceStep } from "./monitors.maintenance.ts";
import {
  bucketsOf,
  type Monitor,
  nextSlotAfter,
  nextState,
  type ProbeResult,
  pushGraceMs,
  TIME,
} from "./monitors.model.ts";

export interface ChecksDeps {
  checks: ChecksRepo;
  /** Parents and held alerts: a child's down alert waits while its parent is down. */
  dependencies: DependenciesRepo;
  tx<T>(fn: (tx: TxHandle) => T): T;
  clock: Clock;
  ids: Ids;
  probe(monitor: Monitor): Promise<ProbeResult>;
  /** The alerts room's listener, told inside the check's transaction. */
  monitorChanged(tx: TxHandle, change: MonitorChange): void;
  /** Whether a maintenance window covers the monitor (asked once per check, in memory). */
  inMaintenance(monitorId: string, at: Date): boolean;
}

/** How a check's outcome moves the monitor's schedule. */
export type Schedule =
  /** A scheduled check: the next one at the monitor's next phase slot; the lease is cleared. */
  | { kind: "slot"; lease: number }
  /** A push arrived: the next missed-push check is an interval plus grace away. */
  | { kind: "push" }
  /** A check on demand: the schedule stays as it is. */
  | { kind: "none" };

/**
 * Stores one outcome: the check row, its hour and day buckets, the monitor's state and any
 * state change commit in ONE transaction. Null when a scheduled check lost its lease.
 */
export function recordOutcome(
  monitor: Monitor,
  result: ProbeResult,
  schedule: Schedule,
  deps: ChecksDeps,
): CheckView | null {
  const now = deps.clock.now();
  const at = isoAt(now);
  const inWindow = deps.inMaintenance(monitor.id, new Date(now));
  const check = { ...checkOf(monitor, result, at, deps.ids.uuid()), maintenance: inWindow };
  const nextCheckAt = nextDueAfter(monitor, schedule, now);
  const written = deps.tx((tx) => {
    // The state is read again inside the transaction: a push or a check on demand may have
    // moved it since the row was claimed.
    const fresh = deps.checks.stateOf(monitor.id);
    if (!fresh) return false;
    const next = nextState(fresh.state, fresh.failures, monitor.retries, result.status);
    const change =
      next.state !== fresh.state
        ? {
            id: deps.ids.uuid(),
            from: fresh.state,
            to: next.state,
            at,
            reason: result.error ?? (result.status === "up" ? "check succeeded" : result.status),
          }
        : null;
    const step = maintenanceStep(fresh, next.state, inWindow, change, at, deps.ids);
    const downSince = step.told?.from === "down" ? deps.checks.lastDownAt(monitor.id) : null;
    const recorded = deps.checks.record(
      {
        check,
        organizationId: monitor.organizationId,
        buckets: bucketsOf(now),
        state: next.state,
        failures: next.failures,
        change: step.event,
        maintenanceFrom: step.maintenanceFrom,
        schedule: nextCheckAt === null ? null : { nextCheckAt },
      },
      schedule.kind === "slot" ? schedule.lease : null,
    );
    if (!recorded) return false;
    const alerts = alertChanges(monitor, check, step.told, downSince, now);
    for (const told of alertsAfterDependencies(monitor, step.told, alerts, deps.dependencies)) {
      deps.monitorChanged(tx, told);
    }
    return true;
  });
  return written ? check : null;
}

function checkOf(
  monitor: Monitor,
  result: ProbeResult,
  at: string,
  id: string,
): Omit<CheckView, "maintenance"> {
  return {
    id,
    monitor_id: monitor.id,
    status: result.status,
    status_code: result.statusCode,
    response_time_ms: result.responseTimeMs,
    error: result.error,
    checked_at: at,
    tls_days_remaining: result.tlsDaysRemaining,
  };
}

/** When the monitor is next due after this outcome; null: its schedule stays as it is. */
function nextDueAfter(monitor: Monitor, schedule: Schedule, now: number): number | null {
  const interval = monitor.intervalSeconds * 1000;
  if (schedule.kind === "push") return now + interval + pushGraceMs(monitor.intervalSeconds);
  if (schedule.kind === "none") return null;
  // A missed push is reported again each interval until a push arrives.
  if (monitor.type === "push") return now + interval;
  return nextSlotAfter(now, monitor.phaseMs, monitor.intervalSeconds);
}

/**
 * What the alerts room hears of a check: going down, recovering from down (with the downtime),
 * and a certificate's days remaining (the rules compare them with their own threshold).
 */
function alertChanges(
  monitor: Monitor,
  check: CheckView,
  change: { id: string; from: string; to: string; reason: string } | null,
  downSince: string | null,
  now: number,
): MonitorChange[] {
  const base = {
    organizationId: monitor.organizationId,
    monitor: {
      id: monitor.id,
      name: monitor.name,
      type: monitor.type,
      target:
        monitor.settings.url ?? monitor.settings.hostname ?? monitor.settings.container ?? null,
    },
    at: check.checked_at,
    tlsDaysRemaining: check.tls_days_remaining,
  };
  const told: MonitorChange[] = [];
  if (change?.to === "down") {
    told.push({
      ...base,
      ...change,
      condition: "monitor_down",
      subjectId: change.id,
      downtimeSeconds: null,
    });
  } else if (change && change.from === "down") {
    const downtimeSeconds = downSince ? Math.round((now - Date.parse(downSince)) / 1000) : null;
    told.push({
      ...base,
      ...change,
      condition: "monitor_up",
      subjectId: change.id,
      downtimeSeconds,
    });
  }
  if (check.tls_days_remaining !== null) {
    // Once per certificate: its expiry day names it.
    const expiresOn = isoAt(now + check.tls_days_remaining * 86_400_000).slice(0, 10);
    told.push({
      ...base,
      condition: "tls_expiring",
      subjectId: `tls:${monitor.id}:${expiresOn}`,
      from: check.status,
      to: check.status,
      reason: `certificate expires in ${check.tls_days_remaining} days`,
      downtimeSeconds: null,
    });
  }
  return told;
}

/** Runs a check now, outside the schedule (`POST …/check`). */
export async function checkNow(monitor: Monitor, deps: ChecksDeps): Promise<CheckView> {
  const result = await deps.probe(monitor);
  return recordOutcome(monitor, result, { kind: "none" }, deps) as CheckView;
}

/** A push arrived: `down` reports a failure with its message, anything else is up. */
export function recordPush(
  monitor: Monitor,
  report: { status?: string; msg?: string; ping?: string },
  deps: ChecksDeps,
): void {
  const failed = report.status === "down";
  const ping = Number(report.ping);
  recordOutcome(
    monitor,
    {
      status: failed ? "down" : "up",
      statusCode: null,
      responseTimeMs: Number.isFinite(ping) && ping >= 0 ? Math.round(ping) : null,
      error: failed ? (report.msg?.slice(0, 500) ?? "reported down") : null,
      tlsDaysRemaining: null,
    },
    { kind: "push" },
    deps,
  );
}

export function listChecks(
  monitorId: string,
  page: PageRequest,
  deps: ChecksDeps,
): GenericPage<CheckView> {
  const rows = deps.checks.checksPage(monitorId, page.pageSize, page.offset);
  return genericPage(rows, pageInfo(page, deps.checks.checksCount(monitorId)));
}

export const listStateEvents = (monitorId: string, deps: ChecksDeps): StateEventView[] =>
  deps.checks.events(monitorId);

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
  deps: Pick<ChecksDeps, "checks" | "clock">,
): RollupBucketView[] {
  const { period, buckets } = ROLLUP_RANGES[range];
  const { hour, day } = bucketsOf(deps.clock.now());
  const from =
    period === "hour" ? hour - (buckets - 1) * TIME.HOUR_MS : day - (buckets - 1) * TIME.DAY_MS;
  return deps.checks.buckets(monitorId, period, from);
}

/**
 * The average response time of each of the last 24 hours, oldest first (null for an hour
 * without a timed check): the list's sparklines, read from the hourly buckets with the list.
 */
export function responseSparkline(
  monitorId: string,
  deps: Pick<ChecksDeps, "checks" | "clock">,
): (number | null)[] {
  const { hour } = bucketsOf(deps.clock.now());
  const from = hour - 23 * TIME.HOUR_MS;
  const byStart = new Map(
    listRollups(monitorId, "24h", deps).map((b) => [Date.parse(b.start), b.avg_response_ms]),
  );
  return Array.from({ length: 24 }, (_, i) => byStart.get(from + i * TIME.HOUR_MS) ?? null);
}
