import type { SQL } from "bun";
import type { MonitorChange } from "../alerts/alerts.model.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import {
  type CheckStatus,
  EMPTY_HISTOGRAM,
  histogramSlot,
  type MonitorState,
} from "./monitors.model.ts";
import type {
  CheckDecision,
  CheckInput,
  CheckView,
  DailyBucket,
  HeldChild,
  MonitorsStore,
  RollupSums,
} from "./monitors.store.ts";

type ChecksStore = Omit<
  MonitorsStore,
  | "insertWithinLimit"
  | "find"
  | "findById"
  | "findByPushToken"
  | "page"
  | "count"
  | "update"
  | "remove"
  | "figures"
  | "resumeOverdue"
  | "parentOf"
  | "claimDue"
>;

type Row = Record<string, unknown>;

const checkOfRow = (row: Row): CheckView => ({
  id: row.id as string,
  monitor_id: row.monitor_id as string,
  status: row.status as CheckStatus,
  status_code: row.status_code as number | null,
  response_time_ms: row.response_time_ms as number | null,
  error: row.error as string | null,
  checked_at: row.checked_at as string,
  tls_days_remaining: row.tls_days_remaining as number | null,
  maintenance: row.maintenance === 1,
});

// bigint and sum() columns arrive as text.
const dayOfRow = (row: Row): DailyBucket => ({
  start: Number(row.start),
  checks: Number(row.checks),
  up: Number(row.up),
  down: Number(row.down),
  degraded: Number(row.degraded),
  maintenance: Number(row.maintenance),
});

/** Writes one check's rows in `tx`, as checks.repo.ts `record` does on SQLite. */
async function writeRecord(tx: SQL, input: CheckInput, decision: CheckDecision): Promise<void> {
  const { record } = decision;
  const c = record.check;
  await tx`
    INSERT INTO monitor_checks (id, monitor_id, organization_id, status, status_code,
      response_time_ms, error, checked_at, tls_days_remaining, maintenance)
    VALUES (${c.id}, ${c.monitor_id}, ${input.organizationId}, ${c.status}, ${c.status_code},
      ${c.response_time_ms}, ${c.error}, ${c.checked_at}, ${c.tls_days_remaining},
      ${c.maintenance ? 1 : 0})`;
  // A check inside a maintenance window counts as maintenance only, so uptime leaves it out.
  const counted = (status: CheckStatus) => (!c.maintenance && c.status === status ? 1 : 0);
  const [up, down, degraded] = [counted("up"), counted("down"), counted("degraded")];
  const maintenance = c.maintenance ? 1 : 0;
  const ms = c.response_time_ms;
  const timed = ms === null ? 0 : 1;
  const slot = ms === null ? null : histogramSlot(ms);
  const fresh = JSON.stringify(EMPTY_HISTOGRAM.map((n, i) => (i === slot ? n + 1 : n)));
  for (const [period, start] of [
    ["hour", record.buckets.hour],
    ["day", record.buckets.day],
  ] as const) {
    await tx`
      INSERT INTO monitor_rollups AS r (monitor_id, period, bucket_start, checks, up, down,
        degraded, response_sum, response_count, response_min, response_max, histogram, maintenance)
      VALUES (${c.monitor_id}, ${period}, ${start}::bigint, 1, ${up}, ${down}, ${degraded},
        coalesce(${ms}::int, 0), ${timed}, ${ms}::int, ${ms}::int, ${fresh}, ${maintenance})
      ON CONFLICT (monitor_id, period, bucket_start) DO UPDATE SET
        checks = r.checks + 1, up = r.up + ${up}, down = r.down + ${down},
        degraded = r.degraded + ${degraded}, maintenance = r.maintenance + ${maintenance},
        response_sum = r.response_sum + coalesce(${ms}::int, 0),
        response_count = r.response_count + ${timed},
        response_min = LEAST(coalesce(r.response_min, ${ms}::int), coalesce(${ms}::int, r.response_min)),
        response_max = GREATEST(coalesce(r.response_max, ${ms}::int), coalesce(${ms}::int, r.response_max)),
        histogram = CASE WHEN ${slot}::int IS NULL THEN r.histogram
          ELSE jsonb_set(r.histogram::jsonb, ARRAY[${slot}::int::text],
            to_jsonb((r.histogram::jsonb ->> ${slot}::int)::bigint + 1))::text END`;
  }
  await tx`
    UPDATE monitors SET state = ${record.state}, consecutive_failures = ${record.failures},
      last_checked_at = ${c.checked_at}, last_response_ms = ${ms}, checks_up = checks_up + ${up},
      checks_down = checks_down + ${down}, checks_degraded = checks_degraded + ${degraded},
      checks_maintenance = checks_maintenance + ${maintenance},
      maintenance_from = ${record.maintenanceFrom}
    WHERE id = ${c.monitor_id}`;
  if (record.schedule) {
    await tx`UPDATE monitors SET next_check_at = ${record.schedule.nextCheckAt}::bigint,
               locked_until = NULL WHERE id = ${c.monitor_id}`;
  }
  const e = record.change;
  if (e) {
    await tx`INSERT INTO monitor_state_events (id, monitor_id, from_state, to_state, at, reason)
             VALUES (${e.id}, ${c.monitor_id}, ${e.from}, ${e.to}, ${e.at}, ${e.reason})`;
  }
}

/** Holds and releases of the check's dependencies; the children whose alerts it released. */
async function writeDependencies(
  tx: SQL,
  monitorId: string,
  decision: CheckDecision,
): Promise<HeldChild[]> {
  if (decision.hold) {
    await tx`UPDATE monitors SET held_alert_id = ${decision.hold.changeId} WHERE id = ${monitorId}`;
    await tx`UPDATE monitor_state_events SET held_by = ${decision.hold.parentId}
             WHERE id = ${decision.hold.changeId}`;
  }
  if (decision.releaseOwn) {
    await tx`UPDATE monitors SET held_alert_id = NULL WHERE id = ${monitorId}`;
  }
  if (!decision.releaseChildren) return [];
  const children = await tx`
    SELECT m.id AS "monitorId", m.organization_id AS "organizationId", m.name, m.type,
      m.settings, e.id AS "changeId", e.from_state AS "from", e.to_state AS "to", e.at, e.reason
    FROM monitors m JOIN monitor_state_events e ON e.id = m.held_alert_id
    WHERE m.parent_id = ${monitorId} AND m.state = 'down'
    ORDER BY m.id
    FOR UPDATE OF m`;
  for (const child of children) {
    await tx`UPDATE monitors SET held_alert_id = NULL WHERE id = ${child.monitorId}`;
  }
  return [...children] as HeldChild[];
}

/** Checks, rollups and state changes over PostgreSQL (part of the monitors room's store). */
export function createChecksPostgresStore(
  pg: PostgresDb,
  options: { monitorChanged?: (tx: SQL, change: MonitorChange) => Promise<void> },
): ChecksStore {
  const { sql } = pg;
  return {
    recordCheck: (input) =>
      sql.begin(async (tx) => {
        // The row is locked: a push, a check on demand and a scheduled check take turns.
        const [row] = await tx`
          SELECT m.state, m.consecutive_failures, m.maintenance_from, m.locked_until,
            m.held_alert_id,
            (SELECT p.state FROM monitors p WHERE p.id = m.parent_id) AS parent_state,
            (SELECT e.at FROM monitor_state_events e WHERE e.monitor_id = m.id
               AND e.to_state = 'down' ORDER BY e.at DESC, e.id DESC LIMIT 1) AS last_down_at
          FROM monitors m WHERE m.id = ${input.monitorId} FOR UPDATE OF m`;
        if (!row) return null;
        if (input.lease !== null && Number(row.locked_until) !== input.lease) return null;
        const decision = input.decide({
          state: row.state as MonitorState,
          failures: row.consecutive_failures as number,
          maintenanceFrom: row.maintenance_from as MonitorState | null,
          heldAlertId: row.held_alert_id as string | null,
          parentState: row.parent_state as MonitorState | null,
          lastDownAt: row.last_down_at as string | null,
        });
        await writeRecord(tx, input, decision);
        const released = await writeDependencies(tx, input.monitorId, decision);
        for (const alert of [...decision.alerts, ...input.releasedAlerts(released)]) {
          await options.monitorChanged?.(tx, alert);
        }
        return decision;
      }),
    checksPage: async (monitorId, limit, offset) =>
      (
        await sql`
          SELECT id, monitor_id, status, status_code, response_time_ms, error, checked_at,
            tls_days_remaining, maintenance
          FROM monitor_checks WHERE monitor_id = ${monitorId}
          ORDER BY checked_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
      ).map(checkOfRow),
    checksCount: async (monitorId) => {
      const [{ n }] = await sql`
        SELECT count(*)::int AS n FROM monitor_checks WHERE monitor_id = ${monitorId}`;
      return n as number;
    },
    events: async (monitorId) => [
      ...(await sql`
        SELECT from_state AS "from", to_state AS "to", at, reason, held_by AS held_by_parent_id
        FROM monitor_state_events WHERE monitor_id = ${monitorId}
        ORDER BY at DESC, id DESC LIMIT 500`),
    ],
    sums: async (monitorId, period, from) => {
      const [row] = await sql`
        SELECT coalesce(sum(checks), 0) AS checks, coalesce(sum(up), 0) AS up,
          coalesce(sum(degraded), 0) AS degraded, coalesce(sum(maintenance), 0) AS maintenance,
          coalesce(sum(response_sum), 0) AS "responseSum",
          coalesce(sum(response_count), 0) AS "responseCount"
        FROM monitor_rollups
        WHERE monitor_id = ${monitorId} AND period = ${period} AND bucket_start >= ${from}::bigint`;
      const sums = {} as RollupSums;
      for (const key of Object.keys(row) as (keyof RollupSums)[]) sums[key] = Number(row[key]);
      return sums;
    },
    hourlyHistogram: async (monitorId, from) => {
      const total = [...EMPTY_HISTOGRAM];
      let slowest: number | null = null;
      const rows = await sql`
        SELECT histogram, response_max AS slowest FROM monitor_rollups
        WHERE monitor_id = ${monitorId} AND period = 'hour' AND bucket_start >= ${from}::bigint`;
      for (const row of rows) {
        (JSON.parse(row.histogram) as number[]).forEach((n, i) => {
          total[i] = (total[i] ?? 0) + n;
        });
        if (row.slowest !== null) slowest = Math.max(slowest ?? 0, row.slowest);
      }
      return { histogram: total, slowest };
    },
    dailyBuckets: async (monitorId, from) =>
      (
        await sql`
          SELECT bucket_start AS start, checks, up, down, degraded, maintenance
          FROM monitor_rollups WHERE monitor_id = ${monitorId} AND period = 'day'
            AND bucket_start >= ${from}::bigint ORDER BY bucket_start`
      ).map(dayOfRow),
    dailyRange: async (monitorId, from, to) =>
      (
        await sql`
          SELECT bucket_start AS start, checks, up, down, degraded, maintenance
          FROM monitor_rollups WHERE monitor_id = ${monitorId} AND period = 'day'
            AND bucket_start BETWEEN ${from}::bigint AND ${to}::bigint ORDER BY bucket_start`
      ).map(dayOfRow),
    buckets: async (monitorId, period, from) =>
      (
        await sql`
          SELECT bucket_start AS start, checks, up, down, degraded,
            CASE WHEN response_count = 0 THEN NULL
              ELSE round(response_sum::numeric / response_count)::int END AS avg_response_ms,
            response_max AS max_response_ms
          FROM monitor_rollups WHERE monitor_id = ${monitorId} AND period = ${period}
            AND bucket_start >= ${from}::bigint ORDER BY bucket_start`
      ).map((row: Row) => ({
        start: new Date(Number(row.start)).toISOString(),
        checks: Number(row.checks),
        up: Number(row.up),
        down: Number(row.down),
        degraded: Number(row.degraded),
        avg_response_ms: row.avg_response_ms as number | null,
        max_response_ms: row.max_response_ms as number | null,
      })),
    tenants: async () =>
      (
        await sql`SELECT DISTINCT o.id, o.plan FROM organizations o
                  WHERE EXISTS (SELECT 1 FROM monitors m WHERE m.organization_id = o.id)`
      ).map((t: Row) => ({ id: t.id as string, plan: (t.plan as string | null) ?? "free" })),
    deleteChecksBefore: async (organizationId, before, limit) =>
      (
        await sql`DELETE FROM monitor_checks WHERE id IN (SELECT id FROM monitor_checks
                    WHERE organization_id = ${organizationId} AND checked_at < ${before}
                    LIMIT ${limit})`
      ).count,
    deleteBucketsBefore: async (period, before) =>
      (
        await sql`DELETE FROM monitor_rollups
                  WHERE period = ${period} AND bucket_start < ${before}::bigint`
      ).count,
  };
}
