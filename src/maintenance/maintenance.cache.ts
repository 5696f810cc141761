import type { WindowSource } from "./maintenance.index.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import type { MaintenanceStore } from "./maintenance.store.ts";

/**
 * The windows of every organization held in memory, for the index to read without a promise
 * where the store answers only with one (PostgreSQL). `load()` reads them all again and names
 * the organizations whose windows changed, so other nodes' writes reach this node's index;
 * `reload(org)` follows this node's own writes at once.
 */
export function createWindowCache(store: Pick<MaintenanceStore, "all" | "list">) {
  let byOrganization = new Map<string, MaintenanceWindow[]>();
  const fingerprint = (windows: readonly MaintenanceWindow[] | undefined) =>
    (windows ?? []).map((w) => `${w.id}@${w.updatedAt}`).join(",");

  const source: WindowSource = {
    all: () => [...byOrganization.values()].flat(),
    list: (organizationId) => byOrganization.get(organizationId) ?? [],
  };
  return {
    source,
    /** Reads every window; returns the organizations whose windows differ from those held. */
    async load(): Promise<string[]> {
      const next = new Map<string, MaintenanceWindow[]>();
      for (const window of await store.all()) {
        next.set(window.organizationId, [...(next.get(window.organizationId) ?? []), window]);
      }
      const changed = [...new Set([...byOrganization.keys(), ...next.keys()])].filter(
        (org) => fingerprint(byOrganization.get(org)) !== fingerprint(next.get(org)),
      );
      byOrganization = next;
      return changed;
    },
    async reload(organizationId: string): Promise<void> {
      const windows = await store.list(organizationId);
      if (windows.length > 0) byOrganization.set(organizationId, windows);
      else byOrganization.delete(organizationId);
    },
  };
}

export type WindowCache = ReturnType<typeof createWindowCache>;
