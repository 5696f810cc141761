import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  sqliteTable,
  text,
} from "drizzle-orm/sqlite-core";
import { organizations } from "../auth/auth.table.ts";

/**
 * Uptime monitors (decisions.md §9, §13, §15). A monitor is also its own due row: the one
 * scheduler tick claims rows whose `next_check_at` has come (leased through `locked_until`,
 * keyed by organization for a fair share of the probe slots). `phase_ms` spreads checks across
 * the interval and survives restarts. The counters and `last_*` columns are what /metrics
 * reads, so a scrape never scans checks.
 */
export const monitors = sqliteTable(
  "monitors",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    type: text("type").notNull(),
    /** The settings of its type as JSON text (url, method, headers, keyword, hostname, ...). */
    settings: text("settings").notNull(),
    intervalSeconds: integer("interval_seconds").notNull(),
    timeoutSeconds: integer("timeout_seconds").notNull(),
    retries: integer("retries").notNull().default(0),
    pushToken: text("push_token").unique(),
    paused: integer("paused").notNull().default(0),
    /** up | down | degraded | pending: the state before pausing is kept while paused. */
    state: text("state").notNull().default("pending"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    phaseMs: integer("phase_ms").notNull(),
    nextCheckAt: integer("next_check_at"),
    lockedUntil: integer("locked_until"),
    lastCheckedAt: text("last_checked_at"),
    lastResponseMs: integer("last_response_ms"),
    checksUp: integer("checks_up").notNull().default(0),
    checksDown: integer("checks_down").notNull().default(0),
    checksDegraded: integer("checks_degraded").notNull().default(0),
    checksMaintenance: integer("checks_maintenance").notNull().default(0),
    /**
     * Set while the monitor is in a maintenance window: the state it had on entering, so leaving
     * can tell the alerts what changed across the window. Null outside maintenance.
     */
    maintenanceFrom: text("maintenance_from"),
    /** The monitor this one depends on: while it is down, this one's down alerts are held. */
    parentId: text("parent_id").references((): AnySQLiteColumn => monitors.id, {
      onDelete: "set null",
    }),
    /** The state change whose down alert waits for the parent to recover (sent then, once). */
    heldAlertId: text("held_alert_id"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("monitors_due").on(t.nextCheckAt),
    index("monitors_org_due").on(t.organizationId, t.nextCheckAt),
    index("monitors_org_created").on(t.organizationId, t.createdAt),
    index("monitors_parent").on(t.parentId),
  ],
);

/** One probe's outcome; kept for the plan's retention. */
export const monitorChecks = sqliteTable(
  "monitor_checks",
  {
    id: text("id").primaryKey(),
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    organizationId: text("organization_id").notNull(),
    status: text("status").notNull(),
    statusCode: integer("status_code"),
    responseTimeMs: integer("response_time_ms"),
    error: text("error"),
    checkedAt: text("checked_at").notNull(),
    tlsDaysRemaining: integer("tls_days_remaining"),
    /** 1: taken inside a maintenance window (excluded from uptime). */
    maintenance: integer("maintenance").notNull().default(0),
  },
  (t) => [
    index("monitor_checks_monitor_time").on(t.monitorId, t.checkedAt),
    index("monitor_checks_org_time").on(t.organizationId, t.checkedAt),
  ],
);

/**
 * Hourly and daily buckets per monitor, written in the check's transaction: every figure a
 * reader shows (uptime, average response) comes from here, never from raw checks.
 */
export const monitorRollups = sqliteTable(
  "monitor_rollups",
  {
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    /** `hour` or `day`. */
    period: text("period").notNull(),
    /** Start of the bucket, epoch ms (UTC). */
    bucketStart: integer("bucket_start").notNull(),
    checks: integer("checks").notNull().default(0),
    up: integer("up").notNull().default(0),
    down: integer("down").notNull().default(0),
    degraded: integer("degraded").notNull().default(0),
    /** Checks inside maintenance windows: counted in `checks`, not in up/down/degraded. */
    maintenance: integer("maintenance").notNull().default(0),
    responseSum: integer("response_sum").notNull().default(0),
    responseCount: integer("response_count").notNull().default(0),
    responseMin: integer("response_min"),
    responseMax: integer("response_max"),
    /** Answers per response-time slot (RESPONSE_EDGES_MS), a JSON array: p95 is read from it. */
    histogram: text("histogram").notNull().default("[0,0,0,0,0,0,0,0,0,0]"),
  },
  (t) => [
    primaryKey({ columns: [t.monitorId, t.period, t.bucketStart] }),
    // Covers the day-bar read (status pages, SLA reports): 90 rows per monitor come from the
    // index alone instead of one table lookup each, about a third off a 50-monitor page's render.
    index("monitor_rollups_counts").on(
      t.monitorId,
      t.period,
      t.bucketStart,
      t.checks,
      t.up,
      t.down,
      t.degraded,
      t.maintenance,
    ),
  ],
);

/** State changes of a monitor (up → down → up), the timeline of `GET …/events`. */
export const monitorStateEvents = sqliteTable(
  "monitor_state_events",
  {
    id: text("id").primaryKey(),
    monitorId: text("monitor_id")
      .notNull()
      .references(() => monitors.id, { onDelete: "cascade" }),
    fromState: text("from_state").notNull(),
    toState: text("to_state").notNull(),
    at: text("at").notNull(),
    reason: text("reason"),
    /** The parent that was down when this change happened: its alert was held for it. */
    heldBy: text("held_by"),
  },
  (t) => [index("monitor_state_events_monitor_at").on(t.monitorId, t.at)],
);
