import type { Principal } from "../auth/auth.model.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import { AppError, validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import { type WindowView, windowView } from "./maintenance.present.ts";
import type { MaintenanceStore } from "./maintenance.store.ts";
import { fieldsOfWindow, type MaintenanceDraft, validateWindow } from "./maintenance.validate.ts";

export interface MaintenanceDeps {
  /** Tells a new window to status pages inside its transaction (see the room). */
  store: MaintenanceStore;
  clock: Clock;
  ids: Ids;
  /** Whether the organization has this monitor (the monitors room answers). */
  monitorExists(organizationId: string, monitorId: string): Promise<boolean>;
  /** The organization's windows were written: the in-memory index must read them again. */
  windowsChanged(organizationId: string): Promise<void>;
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
async function requireOwnMonitors(
  tenant: Tenant,
  draft: MaintenanceDraft,
  deps: MaintenanceDeps,
  kept: readonly string[] = [],
) {
  const unknown: string[] = [];
  for (const id of draft.monitorIds) {
    if (!kept.includes(id) && !(await deps.monitorExists(tenant.organizationId, id))) {
      unknown.push(id);
    }
  }
  if (unknown.length > 0) {
    throw validationFailed({ monitor_ids: [`unknown monitor: ${unknown.join(", ")}`] });
  }
}

/** A deleted monitor's id stays in the row (harmless to the index) but is not shown. */
async function view(window: MaintenanceWindow, deps: MaintenanceDeps): Promise<WindowView> {
  const monitorIds: string[] = [];
  for (const id of window.monitorIds) {
    if (await deps.monitorExists(window.organizationId, id)) monitorIds.push(id);
  }
  return windowView({ ...window, monitorIds }, deps.clock.now());
}

export async function createWindow(
  tenant: Tenant,
  body: unknown,
  deps: MaintenanceDeps,
): Promise<WindowView> {
  const draft = validateWindow(body, null);
  await requireOwnMonitors(tenant, draft, deps);
  const at = isoAt(deps.clock.now());
  const window: MaintenanceWindow = {
    ...draft,
    id: deps.ids.uuid(),
    organizationId: tenant.organizationId,
    createdAt: at,
    updatedAt: at,
  };
  // The count and the insert are one unit of the store, so no other create interleaves.
  if ((await deps.store.insertWithinLimit(window, MAX_WINDOWS)) === "limit_reached") {
    throw maintenanceErrors.limitReached();
  }
  await deps.windowsChanged(tenant.organizationId);
  return view(window, deps);
}

async function requireWindow(
  tenant: Tenant,
  id: string,
  deps: MaintenanceDeps,
): Promise<MaintenanceWindow> {
  const window = await deps.store.find(tenant.organizationId, id);
  if (!window) throw maintenanceErrors.notFound();
  return window;
}

export const getWindow = async (tenant: Tenant, id: string, deps: MaintenanceDeps) =>
  view(await requireWindow(tenant, id, deps), deps);

export async function listWindows(tenant: Tenant, deps: MaintenanceDeps): Promise<WindowView[]> {
  const views: WindowView[] = [];
  for (const window of await deps.store.list(tenant.organizationId)) {
    views.push(await view(window, deps));
  }
  return views;
}

/** Lays `body` over the window's fields (PUT and PATCH alike) and saves it. */
export async function updateWindow(
  tenant: Tenant,
  id: string,
  body: unknown,
  deps: MaintenanceDeps,
): Promise<WindowView> {
  const current = await requireWindow(tenant, id, deps);
  const draft = validateWindow(body, fieldsOfWindow(current));
  await requireOwnMonitors(tenant, draft, deps, current.monitorIds);
  const window = { ...current, ...draft, updatedAt: isoAt(deps.clock.now()) };
  if (!(await deps.store.update(window))) throw maintenanceErrors.notFound();
  await deps.windowsChanged(tenant.organizationId);
  return view(window, deps);
}

export async function deleteWindow(
  tenant: Tenant,
  id: string,
  deps: MaintenanceDeps,
): Promise<void> {
  if (!(await deps.store.remove(tenant.organizationId, id))) throw maintenanceErrors.notFound();
  await deps.windowsChanged(tenant.organizationId);
}
