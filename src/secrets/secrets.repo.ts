import type { Db } from "../db/db.open.ts";
import type { SecretRow } from "./secrets.store.ts";

const COLUMNS = `id, organization_id AS organizationId, name, sealed_value AS sealedValue,
  created_at AS createdAt, updated_at AS updatedAt`;

/** All SQL of the secrets room; every query is scoped to one organization. */
export function createSecretsRepo(db: Db) {
  const { sqlite } = db;
  const insert = sqlite.prepare<unknown, [string, string, string, string, string, string]>(
    `INSERT INTO secrets (id, organization_id, name, sealed_value, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (organization_id, name) DO NOTHING`,
  );
  const byName = sqlite.prepare<SecretRow, [string, string]>(
    `SELECT ${COLUMNS} FROM secrets WHERE organization_id = ? AND name = ?`,
  );
  const all = sqlite.prepare<SecretRow, [string]>(
    `SELECT ${COLUMNS} FROM secrets WHERE organization_id = ? ORDER BY created_at DESC, name`,
  );
  const update = sqlite.prepare<unknown, [string, string, string, string]>(
    "UPDATE secrets SET sealed_value = ?, updated_at = ? WHERE organization_id = ? AND name = ?",
  );
  const remove = sqlite.prepare<unknown, [string, string]>(
    "DELETE FROM secrets WHERE organization_id = ? AND name = ?",
  );
  return {
    /** False when the organization already has a secret of that name. */
    insert(row: SecretRow): boolean {
      const { id, organizationId, name, sealedValue, createdAt, updatedAt } = row;
      return insert.run(id, organizationId, name, sealedValue, createdAt, updatedAt).changes > 0;
    },
    find: (organizationId: string, name: string) => byName.get(organizationId, name),
    list: (organizationId: string) => all.all(organizationId),
    /** False when there is no such secret. */
    updateValue(organizationId: string, name: string, sealedValue: string, at: string): boolean {
      return update.run(sealedValue, at, organizationId, name).changes > 0;
    },
    remove: (organizationId: string, name: string) => remove.run(organizationId, name).changes > 0,
  };
}

export type SecretsRepo = ReturnType<typeof createSecretsRepo>;
