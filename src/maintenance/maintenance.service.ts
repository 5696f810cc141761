import type { Principal } from "../auth/auth.model.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import { AppError, validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { MaintenanceIndex } from "./maintenance.index.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import { type WindowView, windowView } from "./maintenance.present.ts";
import type { MaintenanceRepo } from "./maintenance.repo.ts";
import { fieldsOfWindow, type MaintenanceDraft, validateWindow } from "./maintenance.validate.ts";

export interface MaintenanceDeps {
  repo: MaintenanceRepo;
  index: MaintenanceIndex;
  clock: Clock;
  ids: Ids;
  /** Whether the organization has this monitor (the monitors room answers). */
  monitorExists(organizationId: string, monitorId: string): boolean;
  /** Runs `fn` in one transaction (a new window and what it causes commit together). */
  tx?<T>(fn: (tx: TxHandle) => T): T;
  /** A window was created: status pages owe their subscribers a mail, in the same transaction. */
  windowCreated?(tx: TxHandle, window: MaintenanceWindow): void;
}

type Tenant = Pick<Principal, "organizationId">;

/**
 * Windows one organization may keep. Every check of a monitor and every status page view walks
 * the windows in memory (a cron step each, a few ms for a rare pattern), so an unbounded count
 * would let one organization slow everyone's checks.
 */
export const MAX_WINDOWS = 100;

export const maintenanceErrors = {
  notFound: () => new AppError("not_found", 404),
  limitReached: () => new AppError("maintenance_limit_reached", 403, { limit: MAX_WINDOWS }),
};

/**
 * Another organization's monitor reads as unknown: nothing tells it exists. Only ids not
 * `kept` from the stored window are asked: a monitor deleted since does not block an edit.
 */
function requireOwnMonitors(
  tenant: Tenant,
  draft: MaintenanceDraft,
  deps: MaintenanceDeps,
  kept: readonly string[] = [],
) {
  const unknown = draft.monitorIds.filter(
    (id) => !kept.includes(id) && !deps.monitorExists(tenant.organizationId, id),
  );
  if (unknown.length > 0) {
    throw validationFailed({ monitor_ids: [`unknown monitor: ${unknown.join(", ")}`] });
  }
}

/** A deleted monitor's id stays in the row (harmless to the index) but is not shown. */
function view(window: MaintenanceWindow, deps: MaintenanceDeps): WindowView {
  const monitorIds = window.monitorIds.filter((id) =>
    deps.monitorExists(window.organizationId, id),
  );
  return windowView({ ...window, monitorIds }, deps.clock.now());
}

export function createWindow(tenant: Tenant, body: unknown, deps: MaintenanceDeps): WindowView {
  const draft = validateWindow(body, null);
  requireOwnMonitors(tenant, draft, deps);
  // The count and the insert run with no await between them, so no other create interleaves.
  if (deps.repo.count(tenant.organizationId) >= MAX_WINDOWS) throw maintenanceErrors.limitReached();
  const at = isoAt(deps.clock.now());
  const window: MaintenanceWindow = {
    ...draft,
    id: deps.ids.uuid(),
    organizationId: tenant.organizationId,
    createdAt: at,
    updatedAt: at,
  };
  const { tx, windowCreated } = deps;
  if (tx && windowCreated) {
    tx((handle) => {
      deps.repo.insert(window);
      windowCreated(handle, window);
    });
  } else {
    deps.repo.insert(window);
  }
  deps.index.invalidate(tenant.organizationId);
  return view(window, deps);
}

function requireWindow(tenant: Tenant, id: string, deps: MaintenanceDeps): MaintenanceWindow {
  const window = deps.repo.find(tenant.organizationId, id);
  if (!window) throw maintenanceErrors.notFound();
  return window;
}

export const getWindow = (tenant: Tenant, id: string, deps: MaintenanceDeps) =>
  view(requireWindow(tenant, id, deps), deps);

export const listWindows = (tenant: Tenant, deps: MaintenanceDeps) =>
  deps.repo.list(tenant.organizationId).map((window) => view(window, deps));

/** Lays `body` over the window's fields (PUT and PATCH alike) and saves it. */
export function updateWindow(
  tenant: Tenant,
  id: string,
  body: unknown,
  deps: MaintenanceDeps,
): WindowView {
  const current = requireWindow(tenant, id, deps);
  const draft = validateWindow(body, fieldsOfWindow(current));
  requireOwnMonitors(tenant, draft, deps, current.monitorIds);
  const window = { ...current, ...draft, updatedAt: isoAt(deps.clock.now()) };
  if (!deps.repo.update(window)) throw maintenanceErrors.notFound();
  deps.index.invalidate(tenant.organizationId);
  return view(window, deps);
}

export function deleteWindow(tenant: Tenant, id: string, deps: MaintenanceDeps): void {
  if (!deps.repo.remove(tenant.organizationId, id)) throw maintenanceErrors.notFound();
  deps.index.invalidate(tenant.organizationId);
}
