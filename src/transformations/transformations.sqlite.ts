import type { Db } from "../db/db.open.ts";
import { createTransformationsRepo } from "./transformations.repo.ts";
import type { TransformationsStore } from "./transformations.store.ts";

/** The transformations room's store over SQLite: the repo's statements, answered as promises. */
export function createTransformationsSqliteStore(db: Db): TransformationsStore {
  const repo = createTransformationsRepo(db);
  return {
    insert: async (row) => repo.insert(row),
    find: async (organizationId, id) => repo.find(organizationId, id),
    list: async (organizationId) => repo.list(organizationId),
    update: async (row) => repo.update(row),
    remove: async (organizationId, id) => repo.remove(organizationId, id),
  };
}
