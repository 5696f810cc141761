import type { Ids } from "../shared/ids.ts";
import type { MonitorState } from "./monitors.model.ts";

/** A state change as the timeline stores it and the alerts hear it. */
export interface StateChange {
  id: string;
  from: string;
  to: string;
  at: string;
  reason: string;
}

/** What a check does to the timeline, the alerts and the stored maintenance mark. */
export interface MaintenanceStep {
  /** The state event to store, if any. */
  event: StateChange | null;
  /** The change the alerts hear, if any. */
  told: StateChange | null;
  /** The state on entering the window, kept while inside it; null outside. */
  maintenanceFrom: MonitorState | null;
}

/**
 * How a maintenance window bends one check's outcome (decisions.md §15). Inside a window the
 * state is still tracked underneath, but the timeline shows only entering and leaving, and the
 * alerts hear nothing. The first check after the window tells the alerts the net change across
 * it: a monitor that went down inside (and is still down) alerts then; one that went down and
 * recovered inside stays silent; one that was down before and is up after sends its recovery.
 */
export function maintenanceStep(
  stored: { state: MonitorState; maintenanceFrom: MonitorState | null },
  after: MonitorState,
  inWindow: boolean,
  change: StateChange | null,
  at: string,
  ids: Ids,
): MaintenanceStep {
  const entered = stored.maintenanceFrom;
  if (!inWindow && entered === null) return { event: change, told: change, maintenanceFrom: null };
  if (inWindow) {
    const event =
      entered === null
        ? {
            id: ids.uuid(),
            from: stored.state,
            to: "maintenance",
            at,
            reason: "maintenance window started",
          }
        : null;
    return { event, told: null, maintenanceFrom: entered ?? stored.state };
  }
  const left = {
    id: ids.uuid(),
    from: "maintenance",
    to: after,
    at,
    reason: "maintenance window ended",
  };
  const before = entered ?? stored.state;
  return {
    event: left,
    told: before !== after ? { ...left, from: before } : null,
    maintenanceFrom: null,
  };
}
