import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import { createMaintenanceRepo, type MaintenanceRepo } from "./maintenance.repo.ts";
import type { MaintenanceStore } from "./maintenance.store.ts";

export interface MaintenanceSqliteOptions {
  /** Hears a new window inside its transaction (status pages owe their subscribers a mail). */
  windowCreated?: (tx: TxHandle, window: MaintenanceWindow) => void;
}

/**
 * The maintenance room's store over SQLite: the repo's synchronous statements, each method
 * answered as a promise. A new window's count, insert and notice share one transaction.
 */
export function createMaintenanceSqliteStore(
  db: Db,
  options: MaintenanceSqliteOptions = {},
): MaintenanceStore & { repo: MaintenanceRepo } {
  const repo = createMaintenanceRepo(db);
  const { windowCreated } = options;
  return {
    /** The synchronous repo: the in-memory index reads it without a promise. */
    repo,
    insertWithinLimit: async (window, limit) =>
      db.tx((tx) => {
        if (repo.count(window.organizationId) >= limit) return "limit_reached";
        repo.insert(window);
        windowCreated?.(tx, window);
        return "inserted";
      }),
    update: async (window) => repo.update(window),
    find: async (organizationId, id) => repo.find(organizationId, id),
    list: async (organizationId) => repo.list(organizationId),
    count: async (organizationId) => repo.count(organizationId),
    all: async () => repo.all(),
    remove: async (organizationId, id) => repo.remove(organizationId, id),
  };
}
