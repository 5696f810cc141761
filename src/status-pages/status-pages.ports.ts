import type { MonitorsPorts } from "../monitors/monitors.room.ts";

/** One occurrence of a maintenance window (lent by the maintenance room). */
export type MaintenanceOccurrence = {
  window_id: string;
  title: string;
  description: string | null;
  monitor_ids: string[];
  starts_at: string;
  ends_at: string;
};

export type MaintenanceFor = (
  organizationId: string,
  monitorIds: string[],
  now: Date,
  horizonDays: number,
) => {
  active: MaintenanceOccurrence[];
  upcoming: MaintenanceOccurrence[];
  /** Ended within the last 30 days. */
  recent: MaintenanceOccurrence[];
};

export type DeliveryComponentRef = { bridge_id: string } | { destination_id: string };

export type DeliveryHealth = {
  name: string;
  state: "up" | "degraded" | "down";
  days: { /** YYYY-MM-DD, UTC. */ date: string; attempted: number; delivered: number }[];
};

/** Null when the bridge or destination is not that organization's (lent by routing/delivery). */
export type DeliveryHealthOf = (
  organizationId: string,
  component: DeliveryComponentRef,
  days: number,
) => Promise<DeliveryHealth | null>;

/** A monitor's state change, as `GET /api/v1/uptime-monitors/{id}/events` shows it. */
export type StateChange = {
  monitor_id: string;
  from: string;
  to: string;
  at: string;
  reason: string | null;
};

/** A maintenance window as it is announced to subscribers (the maintenance room's row). */
export interface ScheduledMaintenance {
  organizationId: string;
  title: string;
  description: string | null;
  monitorIds: string[];
  startsAt: string | null;
  endsAt: string | null;
  cron: string | null;
  durationMinutes: number | null;
  timezone: string | null;
}

/** What the status pages room reads of other rooms. */
export interface StatusPagesReads extends Pick<MonitorsPorts, "monitorSummary" | "dailyBuckets"> {
  /** Optional: without it the feed has no monitor state changes. */
  stateChanges?(monitorIds: string[], since: string): Promise<StateChange[]>;
  /** Optional until the maintenance room is wired: no maintenance shown. */
  maintenanceFor?: MaintenanceFor;
  /** Optional until the delivery bridge is wired: no delivery components. */
  deliveryHealth?: DeliveryHealthOf;
}
