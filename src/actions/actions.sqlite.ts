import type { Db } from "../db/db.open.ts";
import { createActionsRepo } from "./actions.repo.ts";
import type { ActionsStore } from "./actions.store.ts";

/** The SQLite ActionsStore: the repo's synchronous statements, answered as promises. */
export function createActionsSqliteStore(db: Db): ActionsStore {
  const repo = createActionsRepo(db);
  return {
    list: async (organizationId, endpointId) => repo.list(organizationId, endpointId),
    chain: async (endpointId) => repo.chain(endpointId),
    ofOrganization: async (organizationId) => repo.ofOrganization(organizationId),
    find: async (organizationId, endpointId, id) => repo.find(organizationId, endpointId, id),
    count: async (endpointId) => repo.count(endpointId),
    insert: async (action) => repo.insert(action),
    update: async (action) => repo.update(action),
    reorder: async (ids) => db.tx(() => repo.reorder(ids)),
    remove: async (organizationId, endpointId, id) => repo.remove(organizationId, endpointId, id),
    lastRun: async (requestId) => repo.lastRun(requestId),
    lastRuns: async (requestIds) => repo.lastRuns(requestIds),
    variables: async (endpointId) => repo.variables(endpointId),
  };
}
