import type { MaintenanceWindow } from "./maintenance.model.ts";

/** What inserting a window within the organization's limit came to. */
export type WindowInsertOutcome = "inserted" | "limit_reached";

/**
 * The maintenance room's storage, one implementation per dialect (SQLite over the repo,
 * PostgreSQL beside it). Every method is a whole unit: the count-then-insert of a new window
 * runs in one transaction inside the implementation, so no other create slips between them.
 * Reads and writes name the organization; another organization's window is never returned or
 * changed.
 */
export interface MaintenanceStore {
  /** Inserts the window unless the organization already keeps `limit` windows. */
  insertWithinLimit(window: MaintenanceWindow, limit: number): Promise<WindowInsertOutcome>;
  /** False when the organization has no such window. */
  update(window: MaintenanceWindow): Promise<boolean>;
  find(organizationId: string, id: string): Promise<MaintenanceWindow | null>;
  /** The organization's windows, newest first. */
  list(organizationId: string): Promise<MaintenanceWindow[]>;
  count(organizationId: string): Promise<number>;
  /** Every window of every organization: what the in-memory index is built from. */
  all(): Promise<MaintenanceWindow[]>;
  /** False when the organization has no such window. */
  remove(organizationId: string, id: string): Promise<boolean>;
}
