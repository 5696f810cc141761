const STATUS: Record<string, { icon: string; label: string; tone: string }> = {
  up: { icon: "▲", label: "Up", tone: "ok" },
  down: { icon: "▼", label: "Down", tone: "danger" },
  degraded: { icon: "◆", label: "Degraded", tone: "warn" },
  pending: { icon: "◌", label: "Pending", tone: "info" },
  paused: { icon: "❚❚", label: "Paused", tone: "muted" },
};

export const MONITOR_STATUSES = Object.keys(STATUS);
export const monitorStatusLabel = (status: string) => STATUS[status]?.label ?? status;

/** A monitor's state in words with a shape; colour only repeats it. */
export function MonitorStatusBadge(props: { status: string }) {
  const s = STATUS[props.status] ?? { icon: "?", label: props.status, tone: "muted" };
  return (
    <span class={`badge tone-${s.tone}`}>
      <span aria-hidden="true">{s.icon}</span> {s.label}
    </span>
  );
}

/** "99.95 %" or "—" before any check. */
export const uptimeText = (value: number | null | undefined) =>
  value === null || value === undefined ? "—" : `${value} %`;
