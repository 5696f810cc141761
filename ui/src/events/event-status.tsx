import type { Delivery, EventStatus } from "./events.api.ts";

const EVENT_STATUS: Record<EventStatus, { icon: string; label: string; tone: string }> = {
  pending: { icon: "◌", label: "Pending", tone: "info" },
  delivered: { icon: "✔", label: "Delivered", tone: "ok" },
  failed: { icon: "✖", label: "Failed", tone: "danger" },
  filtered: { icon: "⊘", label: "Filtered", tone: "muted" },
  paused: { icon: "❚❚", label: "Paused", tone: "warn" },
  unrouted: { icon: "∅", label: "Unrouted", tone: "muted" },
};

const DELIVERY_STATUS: Record<Delivery["status"], { icon: string; label: string; tone: string }> = {
  pending: { icon: "◌", label: "Pending", tone: "info" },
  delivering: { icon: "➜", label: "Sending", tone: "info" },
  delivered: { icon: "✔", label: "Delivered", tone: "ok" },
  retrying: { icon: "↻", label: "Retrying", tone: "warn" },
  failed: { icon: "✖", label: "Failed", tone: "danger" },
};

export const EVENT_STATUSES = Object.keys(EVENT_STATUS) as EventStatus[];
export const eventStatusLabel = (status: EventStatus) => EVENT_STATUS[status].label;

/** A status in words with a shape; colour only repeats it. */
export function EventStatusBadge(props: { status: EventStatus }) {
  const s = EVENT_STATUS[props.status];
  return (
    <span class={`badge tone-${s.tone}`}>
      <span aria-hidden="true">{s.icon}</span> {s.label}
    </span>
  );
}

export function DeliveryStatusBadge(props: { status: Delivery["status"] }) {
  const s = DELIVERY_STATUS[props.status];
  return (
    <span class={`badge tone-${s.tone}`}>
      <span aria-hidden="true">{s.icon}</span> {s.label}
    </span>
  );
}
