import type { AuthPorts } from "../auth/auth.room.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import type { Room } from "../room.ts";
import { createMaintenanceIndex } from "./maintenance.index.ts";
import type { MaintenanceOccurrence, MaintenanceWindow } from "./maintenance.model.ts";
import { createMaintenanceRepo } from "./maintenance.repo.ts";
import { maintenanceRoutes } from "./maintenance.routes.ts";
import type { MaintenanceDeps } from "./maintenance.service.ts";

export type { MaintenanceOccurrence, MaintenanceWindow } from "./maintenance.model.ts";

export type MaintenanceRoomDeps = Pick<AppDeps, "db" | "clock" | "ids">;

export interface MaintenanceRoomPorts {
  guard: AuthPorts["guard"];
  /** Whether the organization has this monitor: a window names only its own monitors. */
  monitorExists(organizationId: string, monitorId: string): boolean;
  /** Optional: status pages mail their subscribers of a new window, in its transaction. */
  windowCreated?(tx: TxHandle, window: MaintenanceWindow): void;
}

/** What the maintenance room lends: the monitors' hot-path question, and status pages' reads. */
export interface MaintenancePorts {
  /** Whether a window covers the monitor at `at`: in memory, asked on every check. */
  inMaintenance(monitorId: string, at: Date): boolean;
  /**
   * The occurrences of the organization's windows touching any of `monitorIds` (each listing
   * only those of its monitors): under way at `now`, starting within `horizonDays`, and ended
   * within the last 30 days (latest first).
   */
  maintenanceFor(
    organizationId: string,
    monitorIds: string[],
    now: Date,
    horizonDays: number,
  ): {
    active: MaintenanceOccurrence[];
    upcoming: MaintenanceOccurrence[];
    recent: MaintenanceOccurrence[];
  };
}

/** Builds the maintenance room (decisions.md §15): `/api/v1/maintenance-windows` and its index. */
export function createMaintenanceRoom(
  deps: MaintenanceRoomDeps,
  ports: MaintenanceRoomPorts,
): Room<MaintenancePorts> {
  const repo = createMaintenanceRepo(deps.db);
  const index = createMaintenanceIndex(repo);
  const maintenance: MaintenanceDeps = {
    repo,
    index,
    clock: deps.clock,
    ids: deps.ids,
    monitorExists: ports.monitorExists,
    tx: (fn) => deps.db.tx(fn),
    windowCreated: ports.windowCreated,
  };
  return {
    routes: maintenanceRoutes(maintenance, ports.guard),
    jobs: [],
    subscriptions: [],
    stop: () => {},
    ports: {
      inMaintenance: (monitorId, at) => index.inMaintenance(monitorId, at),
      maintenanceFor: (organizationId, monitorIds, now, horizonDays) =>
        index.maintenanceFor(organizationId, monitorIds, now, horizonDays),
    },
  };
}
