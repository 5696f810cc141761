import type { MonitorChange } from "../alerts/alerts.model.ts";
import { bucketsOf, type Monitor } from "../monitors/monitors.model.ts";
import type {
  CheckDecision,
  CheckInput,
  CheckState,
  CheckView,
} from "../monitors/monitors.store.ts";

/** Monitors, checks and alerts for the MonitorsStore contract (`$1`-style fixture SQL). */

export const T0 = "2026-01-01T00:00:00.000Z";
export const NOW = Date.parse("2026-01-01T12:00:00.000Z");

export async function organizations(world: {
  run(sql: string, params?: unknown[]): Promise<unknown>;
}) {
  for (const id of ["org-a", "org-b"]) {
    await world.run(
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ($1, $1, 'team', $2, $2)",
      [id, T0],
    );
  }
}

export function monitorOf(id: string, fields: Partial<Monitor> = {}): Monitor {
  return {
    id,
    organizationId: "org-a",
    name: `monitor ${id}`,
    type: "http",
    settings: { url: "https://example.com/health" },
    intervalSeconds: 60,
    timeoutSeconds: 10,
    retries: 0,
    parentId: null,
    pushToken: null,
    paused: false,
    state: "pending",
    consecutiveFailures: 0,
    phaseMs: 1_000,
    nextCheckAt: NOW,
    lastCheckedAt: null,
    lastResponseMs: null,
    checksUp: 0,
    checksDown: 0,
    checksDegraded: 0,
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  } as Monitor;
}

export const alertOf = (monitorId: string, subjectId: string): MonitorChange => ({
  organizationId: "org-a",
  condition: "monitor_down",
  subjectId,
  monitor: { id: monitorId, name: monitorId, type: "http", target: null },
  from: "up",
  to: "down",
  at: T0,
  reason: null,
  downtimeSeconds: null,
  tlsDaysRemaining: null,
});

/** A check of `monitorId` at NOW going to `to`; `seen` receives the state it was decided on. */
export function checkInput(
  monitorId: string,
  to: "up" | "down",
  fields: Partial<CheckDecision> & { lease?: number | null; id?: string; ms?: number | null } = {},
  seen: CheckState[] = [],
): CheckInput {
  const id = fields.id ?? `${monitorId}-c${seen.length}`;
  const check: CheckView = {
    id,
    monitor_id: monitorId,
    status: to,
    status_code: to === "up" ? 200 : 503,
    response_time_ms: fields.ms === undefined ? 120 : fields.ms,
    error: to === "up" ? null : "HTTP 503",
    checked_at: new Date(NOW).toISOString(),
    tls_days_remaining: null,
    maintenance: false,
  };
  return {
    monitorId,
    organizationId: "org-a",
    lease: fields.lease ?? null,
    decide: (state) => {
      seen.push(state);
      return {
        record: {
          check,
          buckets: bucketsOf(NOW),
          state: to,
          failures: to === "down" ? state.failures + 1 : 0,
          maintenanceFrom: null,
          change:
            state.state === to
              ? null
              : { id: `${id}-e`, from: state.state, to, at: check.checked_at, reason: to },
          schedule: { nextCheckAt: NOW + 60_000 },
        },
        hold: fields.hold ?? null,
        releaseOwn: fields.releaseOwn ?? false,
        releaseChildren: fields.releaseChildren ?? false,
        alerts: fields.alerts ?? [],
      };
    },
    releasedAlerts: (children) => children.map((c) => alertOf(c.monitorId, c.changeId)),
  };
}
