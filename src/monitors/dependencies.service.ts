// Monitor dependencies (decisions.md §15): while a parent is down, its children's down alerts are
// held (their checks still run and are recorded); when the parent recovers, children still down
// alert then, once. Runs inside the check's transaction, so a hold and a release commit with it.
import type { MonitorChange } from "../alerts/alerts.model.ts";
import { validationFailed } from "../shared/errors.ts";
import type { DependenciesRepo, HeldChild } from "./dependencies.repo.ts";
import type { Monitor, MonitorSettings } from "./monitors.model.ts";

/** How deep a chain of parents may go: deeper is a mistake, and it bounds the cycle walk. */
const MAX_DEPTH = 20;

/** A parent must be another monitor of the organization and must not lead back to this one. */
export async function checkParent(
  organizationId: string,
  monitorId: string | null,
  parentId: string | null,
  repo: { parentOf(organizationId: string, id: string): Promise<string | null | undefined> },
): Promise<void> {
  if (parentId === null) return;
  if (parentId === monitorId)
    throw validationFailed({ parent_id: ["cannot be the monitor itself"] });
  let next: string | null | undefined = parentId;
  for (let depth = 0; next !== null; depth++) {
    const parent: string | null | undefined = await repo.parentOf(organizationId, next);
    // Another organization's monitor reads as unknown, as everywhere else.
    if (parent === undefined) throw validationFailed({ parent_id: ["is not a monitor"] });
    if (parent === monitorId && monitorId !== null) {
      throw validationFailed({ parent_id: ["would make a cycle of dependencies"] });
    }
    if (depth >= MAX_DEPTH) {
      throw validationFailed({ parent_id: [`chains of parents are at most ${MAX_DEPTH} deep`] });
    }
    next = parent;
  }
}

/** What a state change did to a monitor: enough to decide holds and releases. */
export interface StateChange {
  id: string;
  from: string;
  to: string;
}

/** What dependencies make of a check's alerts, and the holds and releases that go with it. */
export interface DependencyStep {
  alerts: MonitorChange[];
  hold: { changeId: string; parentId: string } | null;
  releaseOwn: boolean;
  releaseChildren: boolean;
}

/**
 * The alerts a check's outcome should send once dependencies are taken into account: a down
 * alert while the parent is down is held (and its state change says so); a recovery of a monitor
 * whose down alert was held is not news; a parent's recovery releases its children's held
 * alerts. Decided from what was read of the monitor and its parent, writing nothing.
 */
export function dependencyStep(
  monitor: Pick<Monitor, "parentId">,
  change: StateChange | null,
  told: MonitorChange[],
  read: { heldAlertId: string | null; parentState: string | null },
): DependencyStep {
  const none = { alerts: told, hold: null, releaseOwn: false, releaseChildren: false };
  if (!change) return none;
  if (change.to === "down" && monitor.parentId && read.parentState === "down") {
    return {
      ...none,
      alerts: told.filter((alert) => alert.condition !== "monitor_down"),
      hold: { changeId: change.id, parentId: monitor.parentId },
    };
  }
  if (change.from !== "down") return none;
  const releaseOwn = read.heldAlertId !== null;
  return {
    alerts: releaseOwn ? told.filter((alert) => alert.condition !== "monitor_up") : told,
    hold: null,
    releaseOwn,
    releaseChildren: true,
  };
}

/** dependencyStep inside the check's synchronous SQLite transaction: reads, then writes. */
export function alertsAfterDependencies(
  monitor: Monitor,
  change: StateChange | null,
  told: MonitorChange[],
  repo: DependenciesRepo,
): MonitorChange[] {
  if (!change) return told;
  const own = repo.stateOf(monitor.id);
  const parentState =
    change.to === "down" && monitor.parentId
      ? (repo.stateOf(monitor.parentId)?.state ?? null)
      : null;
  const step = dependencyStep(monitor, change, told, {
    heldAlertId: own?.heldAlertId ?? null,
    parentState,
  });
  if (step.hold) repo.hold(monitor.id, step.hold.changeId, step.hold.parentId);
  if (step.releaseOwn) repo.release(monitor.id);
  if (!step.releaseChildren) return step.alerts;
  const released = repo.heldChildren(monitor.id).map((child) => {
    repo.release(child.monitorId);
    return heldChildAlert(child);
  });
  return [...step.alerts, ...released];
}

/** The down alert a recovered parent releases for a child still down. */
export function heldChildAlert(child: HeldChild): MonitorChange {
  const settings = JSON.parse(child.settings) as MonitorSettings;
  return {
    organizationId: child.organizationId,
    condition: "monitor_down",
    // The held change's id: the rules' once-per-subject key, so it is sent once.
    subjectId: child.changeId,
    monitor: {
      id: child.monitorId,
      name: child.name,
      type: child.type,
      target: settings.url ?? settings.hostname ?? null,
    },
    from: child.from,
    to: child.to,
    at: child.at,
    reason: child.reason,
    downtimeSeconds: null,
    tlsDaysRemaining: null,
  };
}
