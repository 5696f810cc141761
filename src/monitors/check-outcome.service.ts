import type { MonitorChange } from "../alerts/alerts.model.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { ChecksRepo, CheckView } from "./checks.repo.ts";
import type { DependenciesRepo } from "./dependencies.repo.ts";
import { alertsAfterDependencies, dependencyStep, heldChildAlert } from "./dependencies.service.ts";
import { maintenanceStep } from "./monitors.maintenance.ts";
import {
  bucketsOf,
  type Monitor,
  type MonitorState,
  nextSlotAfter,
  nextState,
  type ProbeResult,
  pushGraceMs,
} from "./monitors.model.ts";
import type { MonitorsStore } from "./monitors.store.ts";

interface OutcomeDeps {
  clock: Clock;
  ids: Ids;
  /** Whether a maintenance window covers the monitor (asked once per check, in memory). */
  inMaintenance(monitorId: string, at: Date): boolean;
}

/** The synchronous SQLite check path: the repos, the transaction, the alerts' listener. */
export interface RecordDeps extends OutcomeDeps {
  checks: ChecksRepo;
  /** Parents and held alerts: a child's down alert waits while its parent is down. */
  dependencies: DependenciesRepo;
  tx<T>(fn: (tx: TxHandle) => T): T;
  /** The alerts room's listener, told inside the check's transaction. */
  monitorChanged(tx: TxHandle, change: MonitorChange): void;
}

/** The check path over the store (the store tells the alerts inside its transaction). */
export interface StoreRecordDeps extends OutcomeDeps {
  store: Pick<MonitorsStore, "recordCheck">;
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
 * state change commit in ONE synchronous SQLite transaction, the alerts told inside it. Null
 * when a scheduled check lost its lease.
 */
export function recordOutcome(
  monitor: Monitor,
  result: ProbeResult,
  schedule: Schedule,
  deps: RecordDeps,
): CheckView | null {
  const now = deps.clock.now();
  const inWindow = deps.inMaintenance(monitor.id, new Date(now));
  const check = { ...checkOf(monitor, result, isoAt(now), deps.ids.uuid()), maintenance: inWindow };
  const nextCheckAt = nextDueAfter(monitor, schedule, now);
  const written = deps.tx((tx) => {
    // The state is read again inside the transaction: a push or a check on demand may have
    // moved it since the row was claimed.
    const fresh = deps.checks.stateOf(monitor.id);
    if (!fresh) return false;
    const decided = decideOutcome(
      { monitor, result, check, fresh, now, nextCheckAt },
      deps.ids,
      () => deps.checks.lastDownAt(monitor.id),
    );
    const recorded = deps.checks.record(
      { ...decided.record, organizationId: monitor.organizationId },
      schedule.kind === "slot" ? schedule.lease : null,
    );
    if (!recorded) return false;
    for (const told of alertsAfterDependencies(
      monitor,
      decided.told,
      decided.alerts,
      deps.dependencies,
    )) {
      deps.monitorChanged(tx, told);
    }
    return true;
  });
  return written ? check : null;
}

/**
 * The same unit through the store, for storage that answers with promises (PostgreSQL): the
 * store runs it as one transaction on the locked monitor row.
 */
export async function recordOutcomeInStore(
  monitor: Monitor,
  result: ProbeResult,
  schedule: Schedule,
  deps: StoreRecordDeps,
): Promise<CheckView | null> {
  const now = deps.clock.now();
  const inWindow = deps.inMaintenance(monitor.id, new Date(now));
  const check = { ...checkOf(monitor, result, isoAt(now), deps.ids.uuid()), maintenance: inWindow };
  const nextCheckAt = nextDueAfter(monitor, schedule, now);
  const written = await deps.store.recordCheck({
    monitorId: monitor.id,
    organizationId: monitor.organizationId,
    lease: schedule.kind === "slot" ? schedule.lease : null,
    decide: (fresh) => {
      const decided = decideOutcome(
        { monitor, result, check, fresh, now, nextCheckAt },
        deps.ids,
        () => fresh.lastDownAt,
      );
      return {
        record: decided.record,
        ...dependencyStep(monitor, decided.told, decided.alerts, fresh),
      };
    },
    releasedAlerts: (children) => children.map(heldChildAlert),
  });
  return written ? check : null;
}

interface OutcomeFacts {
  monitor: Monitor;
  result: ProbeResult;
  check: CheckView;
  fresh: { state: MonitorState; failures: number; maintenanceFrom: MonitorState | null };
  now: number;
  nextCheckAt: number | null;
}

/** What one outcome writes and tells, from the monitor's state as its transaction read it. */
function decideOutcome(facts: OutcomeFacts, ids: Ids, lastDownAt: () => string | null) {
  const { monitor, result, check, fresh, now, nextCheckAt } = facts;
  const at = check.checked_at;
  const next = nextState(fresh.state, fresh.failures, monitor.retries, result.status);
  const change =
    next.state !== fresh.state
      ? {
          id: ids.uuid(),
          from: fresh.state,
          to: next.state,
          at,
          reason: result.error ?? (result.status === "up" ? "check succeeded" : result.status),
        }
      : null;
  const step = maintenanceStep(fresh, next.state, check.maintenance, change, at, ids);
  const downSince = step.told?.from === "down" ? lastDownAt() : null;
  return {
    record: {
      check,
      buckets: bucketsOf(now),
      state: next.state,
      failures: next.failures,
      change: step.event,
      maintenanceFrom: step.maintenanceFrom,
      schedule: nextCheckAt === null ? null : { nextCheckAt },
    },
    told: step.told,
    alerts: alertChanges(monitor, check, step.told, downSince, now),
  };
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
