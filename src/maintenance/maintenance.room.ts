import type { AuthPorts } from "../auth/auth.room.ts";
import type { PostgresSql as SQL } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import { type Room, type RoomSubscription, subscription } from "../room.ts";
import { createWindowCache, type WindowCache } from "./maintenance.cache.ts";
import { createMaintenanceIndex, type MaintenanceIndex } from "./maintenance.index.ts";
import type { MaintenanceOccurrence, MaintenanceWindow } from "./maintenance.model.ts";
import { createMaintenancePostgresStore } from "./maintenance.postgres.ts";
import { maintenanceRoutes } from "./maintenance.routes.ts";
import type { MaintenanceDeps } from "./maintenance.service.ts";
import { createMaintenanceSqliteStore } from "./maintenance.sqlite.ts";
import type { MaintenanceStore } from "./maintenance.store.ts";

export type { MaintenanceOccurrence, MaintenanceWindow } from "./maintenance.model.ts";

export type MaintenanceRoomDeps = Pick<SharedDeps, "clock" | "ids" | "bus"> & RoomStorage;

export interface MaintenanceRoomPorts {
  guard: AuthPorts["guard"];
  /** Whether the organization has this monitor: a window names only its own monitors. */
  monitorExists(organizationId: string, monitorId: string): Promise<boolean>;
  /** Optional: status pages mail their subscribers of a new window, in its transaction. */
  windowCreated?(tx: TxHandle, window: MaintenanceWindow): void;
  /** The same on PostgreSQL (status pages' PostgreSQL storage is still to come: unwired). */
  windowCreatedPostgres?(tx: SQL, window: MaintenanceWindow): Promise<void>;
}

/** What the maintenance room lends: the monitors' hot-path question, and status pages' reads. */
export interface MaintenancePorts {
  /** Whether a window covers the monitor at `at`: in memory, asked on every check. */
  inMaintenance(monitorId: string, at: Date): boolean;
  /**
   * The occurrences of the organization's windows touching any of `monitorIds` (each listing
   * only those of its monitors): under way at `now`, starting within `horizonDays`, and ended
   * within the last 30 days (latest first). In memory, like `inMaintenance`.
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

export const MAINTENANCE_REFRESH_JOB = "maintenance.refresh";
/**
 * On PostgreSQL, how often every window is read again: a backstop for an edit whose
 * `maintenance.changed` this node did not hear (its listening connection was being replaced).
 */
const REFRESH_SECONDS = 10;

/** Builds the maintenance room (decisions.md §15): `/api/v1/maintenance-windows` and its index. */
export function createMaintenanceRoom(
  deps: MaintenanceRoomDeps,
  ports: MaintenanceRoomPorts,
): Room<MaintenancePorts> {
  const { store, index, windowsChanged, refresh, subscriptions } = maintenanceStorage(deps, ports);
  const maintenance: MaintenanceDeps = {
    store,
    clock: deps.clock,
    ids: deps.ids,
    monitorExists: ports.monitorExists,
    windowsChanged,
  };
  return {
    routes: maintenanceRoutes(maintenance, ports.guard),
    jobs: refresh
      ? [
          {
            name: MAINTENANCE_REFRESH_JOB,
            intervalSeconds: REFRESH_SECONDS,
            runNow: true,
            run: refresh,
          },
        ]
      : [],
    subscriptions,
    stop: () => {},
    ports: {
      inMaintenance: (monitorId, at) => index.inMaintenance(monitorId, at),
      maintenanceFor: (organizationId, monitorIds, now, horizonDays) =>
        index.maintenanceFor(organizationId, monitorIds, now, horizonDays),
    },
  };
}

export interface MaintenanceStorage {
  store: MaintenanceStore;
  /** Answers without a promise: every check asks it. */
  index: MaintenanceIndex;
  windowsChanged(organizationId: string): Promise<void>;
  /** PostgreSQL only: reads every window again, so other nodes' edits reach the index. */
  refresh?: () => Promise<void>;
  subscriptions: RoomSubscription[];
}

/**
 * Reads an organization's windows again when any node wrote them (the cluster bridge carries
 * the event), so a window created on one node is in force on every node at once.
 */
export function reloadChangedWindows(
  cache: WindowCache,
  index: Pick<MaintenanceIndex, "invalidate">,
): RoomSubscription {
  return subscription("maintenance.changed", async ({ organizationId }) => {
    await cache.reload(organizationId);
    index.invalidate(organizationId);
  });
}

/**
 * On SQLite the index reads the repo directly when a question finds an organization stale. On
 * PostgreSQL it reads a copy of the windows in memory, loaded at start, after each write of
 * this node, when another node says it wrote (`maintenance.changed`), and every REFRESH_SECONDS.
 */
export function maintenanceStorage(
  deps: MaintenanceRoomDeps,
  ports: Pick<MaintenanceRoomPorts, "windowCreated" | "windowCreatedPostgres">,
): MaintenanceStorage {
  if (!deps.postgres) {
    const store = createMaintenanceSqliteStore(sqliteOf(deps), {
      windowCreated: ports.windowCreated,
    });
    const index = createMaintenanceIndex(store.repo);
    return {
      store,
      index,
      windowsChanged: async (org) => index.invalidate(org),
      subscriptions: [],
    };
  }
  const store = createMaintenancePostgresStore(deps.postgres, {
    windowCreated: ports.windowCreatedPostgres,
  });
  const cache = createWindowCache(store);
  const index = createMaintenanceIndex(cache.source);
  return {
    store,
    index,
    windowsChanged: async (org) => {
      await cache.reload(org);
      index.invalidate(org);
      deps.bus.publish("maintenance.changed", { organizationId: org });
    },
    refresh: async () => {
      for (const org of await cache.load()) index.invalidate(org);
    },
    subscriptions: [reloadChangedWindows(cache, index)],
  };
}
