import type { Db } from "../db/db.open.ts";
import { createIncidentsRepo } from "./incidents.repo.ts";
import type { IncidentsStore } from "./incidents.store.ts";

/** The incidents repo as an IncidentsStore: same statements, answers wrapped in promises. */
export function createIncidentsSqliteStore(db: Db): IncidentsStore {
  const repo = createIncidentsRepo(db);
  const addUpdate = db.sqlite.transaction(repo.addUpdate);
  return {
    insert: async (incident) => repo.insert(incident),
    addUpdate: async (incident, update) => addUpdate(incident, update),
    find: async (pageId, id) => repo.find(pageId, id),
    list: async (pageId) => repo.list(pageId),
    recent: async (pageId, sinceIso) => repo.recent(pageId, sinceIso),
    remove: async (pageId, id) => repo.remove(pageId, id),
  };
}
