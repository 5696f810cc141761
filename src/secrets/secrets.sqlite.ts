import type { Db } from "../db/db.open.ts";
import { createSecretsRepo } from "./secrets.repo.ts";
import type { SecretRow, SecretsStore } from "./secrets.store.ts";

/** The SQLite store, and the synchronous read that paths which cannot wait use. */
export interface SecretsSqliteStore extends SecretsStore {
  /** `list`, answered at once (signature checks and deliveries read it on their hot paths). */
  listNow(organizationId: string): SecretRow[];
}

/** The secrets room's store over SQLite: the repo's statements, each answered as a promise. */
export function createSecretsSqliteStore(db: Db): SecretsSqliteStore {
  const repo = createSecretsRepo(db);
  return {
    insert: async (row) => repo.insert(row),
    find: async (organizationId, name) => repo.find(organizationId, name),
    list: async (organizationId) => repo.list(organizationId),
    updateValue: async (organizationId, name, sealedValue, updatedAt) =>
      repo.updateValue(organizationId, name, sealedValue, updatedAt),
    remove: async (organizationId, name) => repo.remove(organizationId, name),
    listNow: (organizationId) => repo.list(organizationId),
  };
}
