// Monitor dependencies (decisions.md §15): while a parent is down, its children's down alerts are
// held (their checks still run and are recorded); when the parent recovers, children still down
// alert then, once. Runs inside the check's transaction, so a hold and a release commit with it.
import type { MonitorChange } from "../alerts/alerts.model.ts";
import { validationFailed } from "../shared/errors.ts";
import type { DependenciesRepo } from "./dependencies.repo.ts";
import type { Monitor, MonitorSettings } from "./monitors.model.ts";

/** How deep a chain of parents may go: deeper is a mistake, and it bounds the cycle walk. */
const MAX_DEPTH = 20;

/** A parent must be another monitor of the organization and must not lead back to this one. */
export function checkParent(
  organizationId: string,
  monitorId: string | null,
  parentId: string | null,
  repo: DependenciesRepo,
): void {
  if (parentId === null) return;
  if (parentId === monitorId)
    throw validationFailed({ parent_id: ["cannot be the monitor itself"] });
  let next: string | null | undefined = parentId;
  for (let depth = 0; next !== null; depth++) {
    const parent: string | null | undefined = repo.parentOf(organizationId, next);
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

/**
 * The alerts a check's outcome should send once dependencies are taken into account: a down
 * alert while the parent is down is held (and its state change says so); a recovery of a monitor
 * whose down alert was held is not news; a parent's recovery releases its children's held
 * alerts.
 */
export function alertsAfterDependencies(
  monitor: Monitor,
  change: StateChange | null,
  told: MonitorChange[],
  repo: DependenciesRepo,
): MonitorChange[] {
  if (!change) return told;
  const own = repo.stateOf(monitor.id);
  if (change.to === "down" && monitor.parentId) {
    if (repo.stateOf(monitor.parentId)?.state === "down") {
      repo.hold(monitor.id, change.id, monitor.parentId);
      return told.filter((alert) => alert.condition !== "monitor_down");
    }
  }
  if (change.from !== "down") return told;
  let kept = told;
  if (own?.heldAlertId) {
    repo.release(monitor.id);
    kept = told.filter((alert) => alert.condition !== "monitor_up");
  }
  return [...kept, ...releasedChildren(monitor.id, repo)];
}

/** The held down alerts of a recovered parent's children that are still down, cleared. */
function releasedChildren(parentId: string, repo: DependenciesRepo): MonitorChange[] {
  return repo.heldChildren(parentId).map((child) => {
    repo.release(child.monitorId);
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
  });
}
