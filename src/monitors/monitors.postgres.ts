import type { SQL } from "bun";
import type { MonitorChange } from "../alerts/alerts.model.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { createChecksPostgresStore } from "./checks.postgres.ts";
import type { Monitor } from "./monitors.model.ts";
import { monitorOfRow } from "./monitors.repo.ts";
import type { MonitorFigures, MonitorsStore } from "./monitors.store.ts";

export interface MonitorsPostgresOptions {
  /** The alerts room's listener, told inside the check's transaction (the async twin). */
  monitorChanged?: (tx: SQL, change: MonitorChange) => Promise<void>;
}

type Row = Record<string, unknown>;

const BIGINT_COLUMNS = [
  "next_check_at",
  "locked_until",
  "checks_up",
  "checks_down",
  "checks_degraded",
  "checks_maintenance",
];

/** A monitors row → Monitor; bigint columns arrive as text and become numbers first. */
export function monitorOfPgRow(row: Row): Monitor {
  const numbered: Row = { ...row };
  for (const column of BIGINT_COLUMNS) {
    if (numbered[column] !== null && numbered[column] !== undefined) {
      numbered[column] = Number(numbered[column]);
    }
  }
  return monitorOfRow(numbered);
}

/**
 * The monitors room's store over PostgreSQL. Orders that SQLite breaks by rowid break by id
 * here (UUIDv7, time-ordered). The claim locks the due rows it takes and skips those another
 * node holds, so a due check runs on one node only.
 */
export function createMonitorsPostgresStore(
  pg: PostgresDb,
  options: MonitorsPostgresOptions = {},
): MonitorsStore {
  const { sql } = pg;
  const one = async (rows: Promise<Row[]>) => {
    const [row] = await rows;
    return row ? monitorOfPgRow(row) : null;
  };
  return {
    ...createChecksPostgresStore(pg, options),
    insertWithinLimit: (m, limit) =>
      sql.begin(async (tx) => {
        // Creates of one organization take turns, so two cannot both pass the count.
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`monitors:${m.organizationId}`}))`;
        if (limit !== null) {
          const [{ n }] = await tx`
            SELECT count(*)::int AS n FROM monitors WHERE organization_id = ${m.organizationId}`;
          if (n >= limit) return "limit_reached" as const;
        }
        await tx`
          INSERT INTO monitors (id, organization_id, name, type, settings, interval_seconds,
            timeout_seconds, retries, push_token, paused, state, phase_ms, next_check_at,
            created_at, updated_at, parent_id)
          VALUES (${m.id}, ${m.organizationId}, ${m.name}, ${m.type}, ${JSON.stringify(m.settings)},
            ${m.intervalSeconds}, ${m.timeoutSeconds}, ${m.retries}, ${m.pushToken},
            ${m.paused ? 1 : 0}, 'pending', ${m.phaseMs}, ${m.nextCheckAt}, ${m.createdAt},
            ${m.updatedAt}, ${m.parentId})`;
        return "inserted" as const;
      }),
    find: (organizationId, id) =>
      one(sql`SELECT * FROM monitors WHERE organization_id = ${organizationId} AND id = ${id}`),
    findById: (id) => one(sql`SELECT * FROM monitors WHERE id = ${id}`),
    findByPushToken: (token) =>
      one(sql`SELECT * FROM monitors WHERE push_token = ${token} AND type = 'push'`),
    page: async (organizationId, limit, offset) =>
      (
        await sql`SELECT * FROM monitors WHERE organization_id = ${organizationId}
                  ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
      ).map(monitorOfPgRow),
    count: async (organizationId) => {
      const [{ n }] = await sql`
        SELECT count(*)::int AS n FROM monitors WHERE organization_id = ${organizationId}`;
      return n as number;
    },
    update: async (organizationId, id, c) => {
      await sql`
        UPDATE monitors SET name = ${c.name}, type = ${c.type},
          settings = ${JSON.stringify(c.settings)}, interval_seconds = ${c.intervalSeconds},
          timeout_seconds = ${c.timeoutSeconds}, retries = ${c.retries}, paused = ${c.paused ? 1 : 0},
          phase_ms = ${c.phaseMs}, next_check_at = ${c.nextCheckAt}, push_token = ${c.pushToken},
          updated_at = ${c.updatedAt}, parent_id = ${c.parentId}
        WHERE organization_id = ${organizationId} AND id = ${id}`;
    },
    remove: async (organizationId, id) =>
      (await sql`DELETE FROM monitors WHERE organization_id = ${organizationId} AND id = ${id}`)
        .count > 0,
    figures: async () =>
      (
        await sql`
          SELECT id, name, type, paused, state, last_response_ms, checks_up, checks_down,
            checks_degraded, checks_maintenance
          FROM monitors ORDER BY name, id`
      ).map(
        (row: Row): MonitorFigures => ({
          id: row.id as string,
          name: row.name as string,
          type: row.type as string,
          paused: Number(row.paused) === 1,
          state: row.state as string,
          lastResponseMs: row.last_response_ms as number | null,
          checksUp: Number(row.checks_up),
          checksDown: Number(row.checks_down),
          checksDegraded: Number(row.checks_degraded),
          checksMaintenance: Number(row.checks_maintenance),
        }),
      ),
    resumeOverdue: (now, slackMs) =>
      sql.begin(async (tx) => {
        const moved = await tx`
          UPDATE monitors SET next_check_at = ${now}::bigint
            + (((phase_ms - ${now}::bigint) % (interval_seconds::bigint * 1000))
              + interval_seconds::bigint * 1000) % (interval_seconds::bigint * 1000)
          WHERE type <> 'push' AND next_check_at < ${now - slackMs}::bigint
            AND locked_until IS NULL`;
        const pushes = await tx`
          UPDATE monitors SET next_check_at = ${now}::bigint + interval_seconds::bigint * 1000
            + GREATEST(10000, interval_seconds * 100)
          WHERE type = 'push' AND next_check_at < ${now - slackMs}::bigint
            AND locked_until IS NULL`;
        return moved.count + pushes.count;
      }),
    parentOf: async (organizationId, id) => {
      const [row] = await sql`
        SELECT parent_id FROM monitors WHERE organization_id = ${organizationId} AND id = ${id}`;
      return row ? (row.parent_id as string | null) : undefined;
    },
    claimDue: async (now, slackMs, limit) => {
      const rows = await sql`
        UPDATE monitors m
        SET locked_until = ${now}::bigint + m.timeout_seconds * 1000 + ${slackMs}::bigint
        FROM (SELECT id FROM monitors
              WHERE next_check_at <= ${now}::bigint
                AND (locked_until IS NULL OR locked_until <= ${now}::bigint) AND paused = 0
              ORDER BY next_check_at, id LIMIT ${limit}
              FOR UPDATE SKIP LOCKED) due
        WHERE m.id = due.id
        RETURNING m.*`;
      return rows
        .map((row: Row) => ({ monitor: monitorOfPgRow(row), lease: Number(row.locked_until) }))
        .sort(
          (a: { monitor: Monitor }, b: { monitor: Monitor }) =>
            (a.monitor.nextCheckAt ?? 0) - (b.monitor.nextCheckAt ?? 0) ||
            (a.monitor.id < b.monitor.id ? -1 : 1),
        );
    },
  };
}
