import type { Db } from "../db/db.open.ts";
import {
  type CheckStatus,
  EMPTY_HISTOGRAM,
  histogramSlot,
  type MonitorState,
} from "./monitors.model.ts";

/** A stored check, as the API shows it. */
export interface CheckView {
  id: string;
  monitor_id: string;
  status: CheckStatus;
  status_code: number | null;
  response_time_ms: number | null;
  error: string | null;
  checked_at: string;
  tls_days_remaining: number | null;
  /** Taken inside a maintenance window: kept, but left out of uptime. */
  maintenance: boolean;
}

/** One day of a monitor's checks. */
export interface DailyBucket {
  /** Start of the UTC day, epoch ms. */
  start: number;
  checks: number;
  up: number;
  down: number;
  degraded: number;
  /** Checks inside maintenance windows (counted in `checks`, not in up/down/degraded). */
  maintenance: number;
}

/** One hourly or daily bucket as `GET …/rollups` shows it. */
export interface RollupBucketView {
  start: string;
  checks: number;
  up: number;
  down: number;
  degraded: number;
  avg_response_ms: number | null;
  max_response_ms: number | null;
}

/** A state change, as `GET …/events` shows it. */
export interface StateEventView {
  from: string;
  to: string;
  at: string;
  reason: string | null;
  /** The parent that was down then: this change's down alert was held until it recovered. */
  held_by_parent_id: string | null;
}

/** Sums of a monitor's buckets over a window. */
export interface RollupSums {
  checks: number;
  up: number;
  degraded: number;
  maintenance: number;
  responseSum: number;
  responseCount: number;
}

export interface CheckRecord {
  check: CheckView;
  organizationId: string;
  buckets: { hour: number; day: number };
  /** The monitor's state after the check, and its consecutive failures. */
  state: MonitorState;
  failures: number;
  /** The state on entering the maintenance window the monitor is in; null outside one. */
  maintenanceFrom: MonitorState | null;
  /** The state change it caused, if any. */
  change: (Omit<StateEventView, "held_by_parent_id"> & { id: string }) | null;
  /** The next due time and the lease to clear; null: leave the schedule as it is. */
  schedule: { nextCheckAt: number } | null;
}

const CHECK_COLUMNS = `id, monitor_id, status, status_code, response_time_ms, error, checked_at,
  tls_days_remaining, maintenance`;

const checkOfRow = (row: Omit<CheckView, "maintenance"> & { maintenance: number }): CheckView => ({
  ...row,
  maintenance: row.maintenance === 1,
});

/** Checks, rollup buckets and state events of monitors: written together, read per monitor. */
export function createChecksRepo(db: Db) {
  const { sqlite } = db;
  const insertCheck = sqlite.prepare(
    `INSERT INTO monitor_checks (id, monitor_id, organization_id, status, status_code,
       response_time_ms, error, checked_at, tls_days_remaining, maintenance)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // ?9 is the response's histogram slot (NULL without a response time), ?10 the new histogram,
  // ?11 whether the check was inside a maintenance window.
  const upsertBucket = sqlite.prepare(
    `INSERT INTO monitor_rollups (monitor_id, period, bucket_start, checks, up, down, degraded,
       response_sum, response_count, response_min, response_max, histogram, maintenance)
     VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, coalesce(?7, 0), ?8, ?7, ?7, ?10, ?11)
     ON CONFLICT (monitor_id, period, bucket_start) DO UPDATE SET
       checks = checks + 1, up = up + ?4, down = down + ?5, degraded = degraded + ?6,
       maintenance = maintenance + ?11,
       response_sum = response_sum + coalesce(?7, 0), response_count = response_count + ?8,
       response_min = min(coalesce(response_min, ?7), coalesce(?7, response_min)),
       response_max = max(coalesce(response_max, ?7), coalesce(?7, response_max)),
       histogram = CASE WHEN ?9 IS NULL THEN histogram ELSE json_set(histogram,
         '$[' || ?9 || ']', json_extract(histogram, '$[' || ?9 || ']') + 1) END`,
  );
  const updateMonitor = sqlite.prepare(
    `UPDATE monitors SET state = ?, consecutive_failures = ?, last_checked_at = ?,
       last_response_ms = ?, checks_up = checks_up + ?, checks_down = checks_down + ?,
       checks_degraded = checks_degraded + ?, checks_maintenance = checks_maintenance + ?,
       maintenance_from = ? WHERE id = ?`,
  );
  const reschedule = sqlite.prepare(
    "UPDATE monitors SET next_check_at = ?, locked_until = NULL WHERE id = ?",
  );
  const insertEvent = sqlite.prepare(
    `INSERT INTO monitor_state_events (id, monitor_id, from_state, to_state, at, reason)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const stateOf = sqlite.prepare<
    { state: string; failures: number; maintenanceFrom: string | null },
    [string]
  >(
    `SELECT state, consecutive_failures AS failures, maintenance_from AS maintenanceFrom
     FROM monitors WHERE id = ?`,
  );
  const lastDown = sqlite.prepare<{ at: string }, [string]>(
    `SELECT at FROM monitor_state_events WHERE monitor_id = ? AND to_state = 'down'
     ORDER BY at DESC, rowid DESC LIMIT 1`,
  );
  const leaseOf = sqlite.prepare<{ locked_until: number | null }, [string]>(
    "SELECT locked_until FROM monitors WHERE id = ?",
  );
  const checksPage = sqlite.prepare<
    Omit<CheckView, "maintenance"> & { maintenance: number },
    [string, number, number]
  >(
    `SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE monitor_id = ?
     ORDER BY checked_at DESC, rowid DESC LIMIT ? OFFSET ?`,
  );
  const checksCount = sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM monitor_checks WHERE monitor_id = ?",
  );
  const events = sqlite.prepare<StateEventView, [string]>(
    `SELECT from_state AS "from", to_state AS "to", at, reason, held_by AS held_by_parent_id
     FROM monitor_state_events
     WHERE monitor_id = ? ORDER BY at DESC, rowid DESC LIMIT 500`,
  );
  const sums = sqlite.prepare<RollupSums, [string, string, number]>(
    `SELECT coalesce(sum(checks), 0) AS checks, coalesce(sum(up), 0) AS up,
       coalesce(sum(degraded), 0) AS degraded, coalesce(sum(maintenance), 0) AS maintenance,
       coalesce(sum(response_sum), 0) AS responseSum,
       coalesce(sum(response_count), 0) AS responseCount
     FROM monitor_rollups WHERE monitor_id = ? AND period = ? AND bucket_start >= ?`,
  );
  const histograms = sqlite.prepare<
    { histogram: string; slowest: number | null },
    [string, number]
  >(
    `SELECT histogram, response_max AS slowest FROM monitor_rollups
     WHERE monitor_id = ? AND period = 'hour' AND bucket_start >= ?`,
  );
  const days = sqlite.prepare<DailyBucket, [string, number]>(
    `SELECT bucket_start AS start, checks, up, down, degraded, maintenance FROM monitor_rollups
     WHERE monitor_id = ? AND period = 'day' AND bucket_start >= ? ORDER BY bucket_start`,
  );
  const dayRange = sqlite.prepare<DailyBucket, [string, number, number]>(
    `SELECT bucket_start AS start, checks, up, down, degraded, maintenance FROM monitor_rollups
     WHERE monitor_id = ? AND period = 'day' AND bucket_start BETWEEN ? AND ?
     ORDER BY bucket_start`,
  );
  const series = sqlite.prepare<
    Omit<RollupBucketView, "start"> & { start: number },
    [string, string, number]
  >(
    `SELECT bucket_start AS start, checks, up, down, degraded,
       CASE WHEN response_count = 0 THEN NULL
         ELSE CAST(round(CAST(response_sum AS REAL) / response_count) AS INTEGER) END
         AS avg_response_ms,
       response_max AS max_response_ms
     FROM monitor_rollups WHERE monitor_id = ? AND period = ? AND bucket_start >= ?
     ORDER BY bucket_start`,
  );
  const tenants = sqlite.prepare<{ id: string; plan: string | null }, []>(
    `SELECT DISTINCT o.id, o.plan FROM organizations o
     WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.organization_id = o.id)`,
  );
  const deleteOldChecks = sqlite.prepare(
    `DELETE FROM monitor_checks WHERE rowid IN (SELECT rowid FROM monitor_checks
       WHERE organization_id = ? AND checked_at < ? LIMIT ?)`,
  );
  const deleteOldBuckets = sqlite.prepare(
    "DELETE FROM monitor_rollups WHERE period = ? AND bucket_start < ?",
  );

  return {
    /**
     * Writes a check, its two buckets, the monitor's state and counters, and the state change,
     * all in the caller's transaction. With `lease`, nothing is written unless the caller still
     * holds the row (a worker that lost it must not overwrite the new owner): returns false.
     */
    record(record: CheckRecord, lease: number | null): boolean {
      if (lease !== null && leaseOf.get(record.check.monitor_id)?.locked_until !== lease) {
        return false;
      }
      const c = record.check;
      insertCheck.run(
        c.id,
        c.monitor_id,
        record.organizationId,
        c.status,
        c.status_code,
        c.response_time_ms,
        c.error,
        c.checked_at,
        c.tls_days_remaining,
        c.maintenance ? 1 : 0,
      );
      // A check inside a maintenance window counts as maintenance only, so uptime leaves it out.
      const counted = (status: CheckStatus) => (!c.maintenance && c.status === status ? 1 : 0);
      const counts = [counted("up"), counted("down"), counted("degraded")] as const;
      const maintenance = c.maintenance ? 1 : 0;
      const timed = c.response_time_ms === null ? 0 : 1;
      const slot = c.response_time_ms === null ? null : histogramSlot(c.response_time_ms);
      const fresh = EMPTY_HISTOGRAM.map((n, i) => (i === slot ? n + 1 : n));
      for (const [period, start] of [
        ["hour", record.buckets.hour],
        ["day", record.buckets.day],
      ] as const) {
        upsertBucket.run(
          c.monitor_id,
          period,
          start,
          ...counts,
          c.response_time_ms,
          timed,
          slot,
          JSON.stringify(fresh),
          maintenance,
        );
      }
      updateMonitor.run(
        record.state,
        record.failures,
        c.checked_at,
        c.response_time_ms,
        ...counts,
        maintenance,
        record.maintenanceFrom,
        c.monitor_id,
      );
      if (record.schedule) reschedule.run(record.schedule.nextCheckAt, c.monitor_id);
      const e = record.change;
      if (e) insertEvent.run(e.id, c.monitor_id, e.from, e.to, e.at, e.reason);
      return true;
    },
    /** The monitor's current state and consecutive failures; null when it was deleted. */
    stateOf(
      monitorId: string,
    ): { state: MonitorState; failures: number; maintenanceFrom: MonitorState | null } | null {
      const row = stateOf.get(monitorId);
      if (!row) return null;
      const { state, failures, maintenanceFrom } = row;
      return {
        state: state as MonitorState,
        failures,
        maintenanceFrom: maintenanceFrom as MonitorState | null,
      };
    },
    /** When the monitor last went down (ISO), or null. */
    lastDownAt: (monitorId: string) => lastDown.get(monitorId)?.at ?? null,
    checksPage: (monitorId: string, limit: number, offset: number) =>
      checksPage.all(monitorId, limit, offset).map(checkOfRow),
    checksCount: (monitorId: string) => checksCount.get(monitorId)?.n ?? 0,
    events: (monitorId: string) => events.all(monitorId),
    /** Bucket sums of one period since `from` (a bucket start). */
    sums: (monitorId: string, period: "hour" | "day", from: number) =>
      sums.get(monitorId, period, from) as RollupSums,
    /** The hourly histograms since `from`, added up, with the slowest answer among them. */
    hourlyHistogram(monitorId: string, from: number) {
      const total = [...EMPTY_HISTOGRAM];
      let slowest: number | null = null;
      for (const row of histograms.all(monitorId, from)) {
        (JSON.parse(row.histogram) as number[]).forEach((n, i) => {
          total[i] = (total[i] ?? 0) + n;
        });
        if (row.slowest !== null) slowest = Math.max(slowest ?? 0, row.slowest);
      }
      return { histogram: total, slowest };
    },
    /** Daily buckets since `from` (a day start), oldest first: status pages' bars. */
    dailyBuckets: (monitorId: string, from: number) => days.all(monitorId, from),
    /** Daily buckets starting in [from, to] (day starts), oldest first: SLA reports. */
    dailyRange: (monitorId: string, from: number, to: number) => dayRange.all(monitorId, from, to),
    /** The buckets of one period since `from` (a bucket start), oldest first: charts. */
    buckets: (monitorId: string, period: "hour" | "day", from: number): RollupBucketView[] =>
      series
        .all(monitorId, period, from)
        .map((row) => ({ ...row, start: new Date(row.start).toISOString() })),
    tenants: () => tenants.all().map((t) => ({ id: t.id, plan: t.plan ?? "free" })),
    deleteChecksBefore: (organizationId: string, before: string, limit: number) =>
      deleteOldChecks.run(organizationId, before, limit).changes,
    deleteBucketsBefore: (period: "hour" | "day", before: number) =>
      deleteOldBuckets.run(period, before).changes,
  };
}

export type ChecksRepo = ReturnType<typeof createChecksRepo>;
