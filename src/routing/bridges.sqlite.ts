import type { Db } from "../db/db.open.ts";
import { createBridgesRepo } from "./bridges.repo.ts";
import type { BridgesStore } from "./bridges.store.ts";
import { createSourcesRepo } from "./sources.repo.ts";

/** The bridges' store over SQLite: the repo's synchronous statements, answered as promises. */
export function createBridgesSqliteStore(db: Db): BridgesStore {
  const repo = createBridgesRepo(db);
  const sources = createSourcesRepo(db);
  return {
    createBridge: async (bridge, destinations, newSource) =>
      db.tx(() => {
        if (newSource && !sources.insert(newSource)) return false;
        repo.insertBridge(bridge);
        for (const { destination, sealedSecret } of destinations) {
          repo.insertDestination(destination, sealedSecret);
        }
        return true;
      }),
    findBridge: async (organizationId, id) => repo.findBridge(organizationId, id),
    listBridges: async (organizationId) => repo.listBridges(organizationId),
    bridgesOfSource: async (sourceId) => repo.bridgesOfSource(sourceId),
    updateBridge: async (bridge) => repo.updateBridge(bridge),
    removeBridge: async (organizationId, id) => repo.removeBridge(organizationId, id),
    addDestination: async ({ destination, sealedSecret }, max) =>
      db.tx(() => {
        if (repo.destinationsOf([destination.bridgeId]).length >= max) return false;
        repo.insertDestination(destination, sealedSecret);
        return true;
      }),
    destinationsOfOrganization: async (organizationId) =>
      repo.destinationsOfOrganization(organizationId),
    destinationsOf: async (bridgeIds) => repo.destinationsOf(bridgeIds),
    findDestination: async (bridgeId, id) => repo.findDestination(bridgeId, id),
    findDestinationWithSecrets: async (id) => repo.findDestinationWithSecrets(id),
    describeDestination: async (id) => repo.describeDestination(id),
    updateDestination: async (destination) => repo.updateDestination(destination),
    rotateSecret: async (id, sealed, previousUntil, updatedAt) =>
      db.tx(() => {
        const current = repo.findDestinationWithSecrets(id)?.secrets.current ?? null;
        repo.updateSecrets(
          id,
          { current: sealed, previous: current, previousUntil: current ? previousUntil : null },
          updatedAt,
        );
      }),
    removeDestination: async (bridgeId, id) => repo.removeDestination(bridgeId, id),
  };
}
