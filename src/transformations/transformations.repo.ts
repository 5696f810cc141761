import type { Db } from "../db/db.open.ts";
import type { TransformationRow } from "./transformations.store.ts";

const COLUMNS = `id, organization_id AS organizationId, name, code, created_at AS createdAt,
  updated_at AS updatedAt`;

/** All SQL of the transformations room; every query is scoped to one organization. */
export function createTransformationsRepo(db: Db) {
  const { sqlite } = db;
  const insert = sqlite.prepare<unknown, [string, string, string, string, string, string]>(
    `INSERT INTO transformations (id, organization_id, name, code, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const byId = sqlite.prepare<TransformationRow, [string, string]>(
    `SELECT ${COLUMNS} FROM transformations WHERE organization_id = ? AND id = ?`,
  );
  const all = sqlite.prepare<TransformationRow, [string]>(
    `SELECT ${COLUMNS} FROM transformations WHERE organization_id = ?
     ORDER BY created_at DESC, id DESC`,
  );
  const update = sqlite.prepare<unknown, [string, string, string, string, string]>(
    `UPDATE transformations SET name = ?, code = ?, updated_at = ?
     WHERE organization_id = ? AND id = ?`,
  );
  const remove = sqlite.prepare<unknown, [string, string]>(
    "DELETE FROM transformations WHERE organization_id = ? AND id = ?",
  );
  return {
    insert(row: TransformationRow): void {
      insert.run(row.id, row.organizationId, row.name, row.code, row.createdAt, row.updatedAt);
    },
    find: (organizationId: string, id: string) => byId.get(organizationId, id),
    list: (organizationId: string) => all.all(organizationId),
    update(row: TransformationRow): void {
      update.run(row.name, row.code, row.updatedAt, row.organizationId, row.id);
    },
    remove: (organizationId: string, id: string) => remove.run(organizationId, id).changes > 0,
  };
}

export type TransformationsRepo = ReturnType<typeof createTransformationsRepo>;
