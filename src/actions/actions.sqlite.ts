import type { Db } from "../db/db.open.ts";
import type { Action } from "./actions.model.ts";
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
    append: async (fields, cap) =>
      db.tx(() => {
        const count = repo.count(fields.endpointId);
        if (count >= cap) return null;
        const action: Action = { ...fields, position: count };
        repo.insert(action);
        return action;
      }),
    reorder: async (ids) => db.tx(() => repo.reorder(ids)),
    remove: async (organizationId, endpointId, id) =>
      db.tx(() => {
        if (!repo.remove(organizationId, endpointId, id)) return false;
        repo.reorder(repo.list(organizationId, endpointId).map((action) => action.id));
        return true;
      }),
    lastRun: async (requestId) => repo.lastRun(requestId),
    lastRuns: async (requestIds) => repo.lastRuns(requestIds),
    variables: async (endpointId) => repo.variables(endpointId),
  };
}
