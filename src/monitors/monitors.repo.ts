import type { Db } from "../db/db.open.ts";
import type { Monitor, MonitorSettings, MonitorState, MonitorType } from "./monitors.model.ts";

interface MonitorRow {
  id: string;
  organization_id: string;
  name: string;
  type: string;
  settings: string;
  interval_seconds: number;
  timeout_seconds: number;
  retries: number;
  parent_id: string | null;
  push_token: string | null;
  paused: number;
  state: string;
  consecutive_failures: number;
  phase_ms: number;
  next_check_at: number | null;
  last_checked_at: string | null;
  last_response_ms: number | null;
  checks_up: number;
  checks_down: number;
  checks_degraded: number;
  created_at: string;
  updated_at: string;
}

/** A row as the due queue's RETURNING * or a SELECT * gives it → the room's Monitor. */
export function monitorOfRow(row: Record<string, unknown>): Monitor {
  const r = row as unknown as MonitorRow;
  return {
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    type: r.type as MonitorType,
    settings: JSON.parse(r.settings) as MonitorSettings,
    intervalSeconds: r.interval_seconds,
    timeoutSeconds: r.timeout_seconds,
    retries: r.retries,
    parentId: r.parent_id ?? null,
    pushToken: r.push_token,
    paused: r.paused === 1,
    state: r.state as MonitorState,
    consecutiveFailures: r.consecutive_failures,
    phaseMs: r.phase_ms,
    nextCheckAt: r.next_check_at,
    lastCheckedAt: r.last_checked_at,
    lastResponseMs: r.last_response_ms,
    checksUp: r.checks_up,
    checksDown: r.checks_down,
    checksDegraded: r.checks_degraded,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** What /metrics shows of a monitor. */
export interface MonitorFigures {
  id: string;
  name: string;
  type: string;
  paused: boolean;
  state: string;
  lastResponseMs: number | null;
  checksUp: number;
  checksDown: number;
  checksDegraded: number;
  checksMaintenance: number;
}

/** The editable columns of a monitor. */
export interface MonitorColumns {
  name: string;
  type: MonitorType;
  settings: MonitorSettings;
  intervalSeconds: number;
  timeoutSeconds: number;
  retries: number;
  parentId: string | null;
  paused: boolean;
  phaseMs: number;
  nextCheckAt: number | null;
  pushToken: string | null;
  updatedAt: string;
}

/** The monitors' own rows: CRUD, lookups by push token, and the figures /metrics reads. */
export function createMonitorsRepo(db: Db) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO monitors (id, organization_id, name, type, settings, interval_seconds,
       timeout_seconds, retries, push_token, paused, state, phase_ms, next_check_at, created_at,
       updated_at, parent_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
  );
  const byId = sqlite.prepare<MonitorRow, [string, string]>(
    "SELECT * FROM monitors WHERE organization_id = ? AND id = ?",
  );
  const byIdAnyOrg = sqlite.prepare<MonitorRow, [string]>("SELECT * FROM monitors WHERE id = ?");
  const byToken = sqlite.prepare<MonitorRow, [string]>(
    "SELECT * FROM monitors WHERE push_token = ? AND type = 'push'",
  );
  const page = sqlite.prepare<MonitorRow, [string, number, number]>(
    `SELECT * FROM monitors WHERE organization_id = ? ORDER BY created_at DESC, id DESC
     LIMIT ? OFFSET ?`,
  );
  const count = sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM monitors WHERE organization_id = ?",
  );
  const update = sqlite.prepare(
    `UPDATE monitors SET name = ?, type = ?, settings = ?, interval_seconds = ?,
       timeout_seconds = ?, retries = ?, paused = ?, phase_ms = ?, next_check_at = ?,
       push_token = ?, updated_at = ?, parent_id = ?
     WHERE organization_id = ? AND id = ?`,
  );
  const remove = sqlite.prepare("DELETE FROM monitors WHERE organization_id = ? AND id = ?");
  const figures = sqlite.prepare<MonitorFigures, []>(
    `SELECT id, name, type, paused, state, last_response_ms AS lastResponseMs,
       checks_up AS checksUp, checks_down AS checksDown, checks_degraded AS checksDegraded,
       checks_maintenance AS checksMaintenance
     FROM monitors ORDER BY name, id`,
  );
  // Overdue slots after a restart move to their next phase slot: no burst of every monitor.
  const resume = sqlite.prepare(
    `UPDATE monitors SET next_check_at = ?1 + ((((phase_ms - ?1) % (interval_seconds * 1000))
       + interval_seconds * 1000) % (interval_seconds * 1000))
     WHERE type <> 'push' AND next_check_at < ?1 - ?2 AND locked_until IS NULL`,
  );
  // Pushes could not reach a stopped server: a push monitor gets a whole interval (and grace)
  // from the restart before a missing push counts against it.
  const resumePush = sqlite.prepare(
    `UPDATE monitors SET next_check_at = ?1 + interval_seconds * 1000
       + max(10000, interval_seconds * 100)
     WHERE type = 'push' AND next_check_at < ?1 - ?2 AND locked_until IS NULL`,
  );
  // The due queue claims on SQLite; this is the store's claim, the same rows in the same order.
  // Each lease outlives the monitor's own timeout by ?2 ms.
  const claim = sqlite.prepare<MonitorRow & { locked_until: number }, [number, number, number]>(
    `UPDATE monitors SET locked_until = ?1 + timeout_seconds * 1000 + ?2
     WHERE id IN (SELECT id FROM monitors WHERE next_check_at <= ?1
       AND (locked_until IS NULL OR locked_until <= ?1) AND paused = 0
       ORDER BY next_check_at, id LIMIT ?3)
     RETURNING *`,
  );
  return {
    insert(monitor: Monitor): void {
      const m = monitor;
      insert.run(
        m.id,
        m.organizationId,
        m.name,
        m.type,
        JSON.stringify(m.settings),
        m.intervalSeconds,
        m.timeoutSeconds,
        m.retries,
        m.pushToken,
        m.paused ? 1 : 0,
        m.phaseMs,
        m.nextCheckAt,
        m.createdAt,
        m.updatedAt,
        m.parentId,
      );
    },
    find(organizationId: string, id: string): Monitor | null {
      const row = byId.get(organizationId, id);
      return row ? monitorOfRow(row as unknown as Record<string, unknown>) : null;
    },
    findById(id: string): Monitor | null {
      const row = byIdAnyOrg.get(id);
      return row ? monitorOfRow(row as unknown as Record<string, unknown>) : null;
    },
    findByPushToken(token: string): Monitor | null {
      const row = byToken.get(token);
      return row ? monitorOfRow(row as unknown as Record<string, unknown>) : null;
    },
    page(organizationId: string, limit: number, offset: number): Monitor[] {
      return page
        .all(organizationId, limit, offset)
        .map((row) => monitorOfRow(row as unknown as Record<string, unknown>));
    },
    count: (organizationId: string) => count.get(organizationId)?.n ?? 0,
    update(organizationId: string, id: string, c: MonitorColumns): void {
      update.run(
        c.name,
        c.type,
        JSON.stringify(c.settings),
        c.intervalSeconds,
        c.timeoutSeconds,
        c.retries,
        c.paused ? 1 : 0,
        c.phaseMs,
        c.nextCheckAt,
        c.pushToken,
        c.updatedAt,
        c.parentId,
        organizationId,
        id,
      );
    },
    remove: (organizationId: string, id: string) => remove.run(organizationId, id).changes > 0,
    /** Every monitor's figures for /metrics: its own columns, never a scan of checks. */
    figures: () => figures.all().map((row) => ({ ...row, paused: Number(row.paused) === 1 })),
    /** Leases up to `limit` due monitors, each for its timeout and `slackMs`, in due order. */
    claimDue: (now: number, slackMs: number, limit: number) =>
      claim
        .all(now, slackMs, limit)
        .map((row) => ({
          monitor: monitorOfRow(row as unknown as Record<string, unknown>),
          lease: row.locked_until,
        }))
        .sort(
          (a, b) =>
            (a.monitor.nextCheckAt ?? 0) - (b.monitor.nextCheckAt ?? 0) ||
            (a.monitor.id < b.monitor.id ? -1 : 1),
        ),
    /** Moves slots missed by more than `slackMs` (the server was down) to their next phase slot. */
    resumeOverdue: (now: number, slackMs: number) =>
      resume.run(now, slackMs).changes + resumePush.run(now, slackMs).changes,
  };
}

export type MonitorsRepo = ReturnType<typeof createMonitorsRepo>;
