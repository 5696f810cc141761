import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { TransformationRow, TransformationsStore } from "./transformations.store.ts";

type Row = Record<string, unknown>;

const toTransformation = (row: Row): TransformationRow => ({
  id: row.id as string,
  organizationId: row.organization_id as string,
  name: row.name as string,
  code: row.code as string,
  createdAt: row.created_at as string,
  updatedAt: row.updated_at as string,
});

/** The transformations room's store over PostgreSQL. */
export function createTransformationsPostgresStore(pg: PostgresDb): TransformationsStore {
  const { sql } = pg;
  return {
    insert: async (row) => {
      await sql`
        INSERT INTO transformations (id, organization_id, name, code, created_at, updated_at)
        VALUES (${row.id}, ${row.organizationId}, ${row.name}, ${row.code}, ${row.createdAt},
          ${row.updatedAt})`;
    },
    find: async (organizationId, id) => {
      const [row] = await sql`
        SELECT * FROM transformations WHERE organization_id = ${organizationId} AND id = ${id}`;
      return row ? toTransformation(row) : null;
    },
    list: async (organizationId) =>
      (
        await sql`SELECT * FROM transformations WHERE organization_id = ${organizationId}
                  ORDER BY created_at DESC, id DESC`
      ).map(toTransformation),
    update: async (row) => {
      await sql`
        UPDATE transformations SET name = ${row.name}, code = ${row.code},
          updated_at = ${row.updatedAt}
        WHERE organization_id = ${row.organizationId} AND id = ${row.id}`;
    },
    remove: async (organizationId, id) => {
      const removed = await sql`
        DELETE FROM transformations WHERE organization_id = ${organizationId} AND id = ${id}
        RETURNING id`;
      return removed.length > 0;
    },
  };
}
