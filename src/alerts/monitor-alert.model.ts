// What a monitor alert says (decisions.md §13, §15): which monitor, what changed, when, why, and
// for a recovery how long it was down. Stored with the firing; every channel renders from it.
import type { ChannelEvent } from "../delivery/channels/channels.model.ts";
import type { AlertRule, MonitorChange } from "./alerts.model.ts";

/** A monitor's change as a firing stores it (snake_case, as the webhook document shows it). */
export interface MonitorAlertSnapshot {
  monitor: { id: string; name: string; type: string; target: string | null };
  change: {
    condition: MonitorChange["condition"];
    from: string;
    to: string;
    at: string;
    reason: string | null;
    downtime_seconds: number | null;
    tls_days_remaining: number | null;
  };
}

export function monitorSnapshotOf(change: MonitorChange): MonitorAlertSnapshot {
  return {
    monitor: { ...change.monitor },
    change: {
      condition: change.condition,
      from: change.from,
      to: change.to,
      at: change.at,
      reason: change.reason,
      downtime_seconds: change.downtimeSeconds,
      tls_days_remaining: change.tlsDaysRemaining,
    },
  };
}

/** The made-up change a monitor rule's test alert shows. */
export function sampleMonitorSnapshot(rule: AlertRule, at: string): MonitorAlertSnapshot {
  const condition = rule.condition.type as MonitorChange["condition"];
  const up = condition === "monitor_up";
  return {
    monitor: {
      id: "00000000-0000-0000-0000-000000000003",
      name: "Sample monitor",
      type: "http",
      target: "https://example.com/health",
    },
    change: {
      condition,
      from: up ? "down" : "up",
      to: up ? "up" : condition === "tls_expiring" ? "up" : "down",
      at,
      reason: up ? "check succeeded" : "status 503 not in 200-299",
      downtime_seconds: up ? 300 : null,
      tls_days_remaining: condition === "tls_expiring" ? (rule.condition.value ?? 7) : null,
    },
  };
}

const duration = (seconds: number) => {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
};

function headlineOf(snapshot: MonitorAlertSnapshot): string {
  const { change, monitor } = snapshot;
  if (change.condition === "monitor_up") return `Monitor up: ${monitor.name}`;
  if (change.condition === "tls_expiring") {
    return `Certificate of ${monitor.name} expires in ${change.tls_days_remaining} days`;
  }
  return `Monitor down: ${monitor.name}`;
}

/** A monitor alert as a channel event; `data` is the webhook document's machine-readable part. */
export function monitorAlertEvent(alert: {
  alertId: string;
  test: boolean;
  rule: Pick<AlertRule, "id" | "name" | "condition">;
  snapshot: MonitorAlertSnapshot;
  firedAt: string;
  linkBase: string;
}): ChannelEvent {
  const { monitor, change } = alert.snapshot;
  const link = `${alert.linkBase}/api/v1/uptime-monitors/${monitor.id}`;
  const lines = [
    `${monitor.name} (${monitor.type}${monitor.target ? ` ${monitor.target}` : ""}) went from ${change.from} to ${change.to} at ${change.at}.`,
  ];
  if (change.reason) lines.push(`Reason: ${change.reason}`);
  if (change.downtime_seconds !== null)
    lines.push(`Down for ${duration(change.downtime_seconds)}.`);
  lines.push(`Alert rule: ${alert.rule.name}.`);
  return {
    kind: `monitor.${change.condition.replace(/^monitor_/, "")}`,
    title: `${alert.test ? "[test] " : ""}${headlineOf(alert.snapshot)}`,
    text: lines.join("\n"),
    link,
    occurredAt: change.at,
    data: {
      alert_id: alert.alertId,
      test: alert.test,
      alert_rule: {
        id: alert.rule.id,
        name: alert.rule.name,
        condition: {
          type: alert.rule.condition.type,
          value: alert.rule.condition.value,
          monitor_ids: alert.rule.condition.monitorIds ?? null,
        },
      },
      monitor,
      change,
      monitor_url: link,
    },
  };
}
