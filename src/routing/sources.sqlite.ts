import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { createSourcesRepo } from "./sources.repo.ts";
import type { SourcesStore } from "./sources.store.ts";

export interface SourcesSqliteOptions {
  /** The dedup room's port: a deleted source's keys and counters go in the same transaction. */
  forgetSource?(tx: TxHandle, sourceId: string): void;
}

/** The sources' store over SQLite: the repo's synchronous statements, answered as promises. */
export function createSourcesSqliteStore(db: Db, options: SourcesSqliteOptions = {}): SourcesStore {
  const repo = createSourcesRepo(db);
  return {
    planOf: async (organizationId) => repo.planOf(organizationId),
    insert: async (source) => repo.insert(source),
    find: async (organizationId, id) => repo.find(organizationId, id),
    findById: async (id) => repo.findById(id),
    findBySlug: async (slug) => repo.findBySlug(slug),
    list: async (organizationId) => repo.list(organizationId),
    update: async (source) => repo.update(source),
    remove: async (organizationId, id) =>
      db.tx((tx) => {
        if (!repo.remove(organizationId, id)) return false;
        options.forgetSource?.(tx, id);
        return true;
      }),
  };
}
