import type { DbHandle } from "../db/db.tx.ts";
import { createSourcesRepo } from "./sources.repo.ts";
import type { SourcesStore } from "./sources.store.ts";

/** The sources' store over SQLite: the repo's synchronous statements, answered as promises. */
export function createSourcesSqliteStore(db: DbHandle): SourcesStore {
  const repo = createSourcesRepo(db);
  return {
    planOf: async (organizationId) => repo.planOf(organizationId),
    insert: async (source) => repo.insert(source),
    find: async (organizationId, id) => repo.find(organizationId, id),
    findById: async (id) => repo.findById(id),
    findBySlug: async (slug) => repo.findBySlug(slug),
    list: async (organizationId) => repo.list(organizationId),
    update: async (source) => repo.update(source),
    remove: async (organizationId, id) => repo.remove(organizationId, id),
  };
}
