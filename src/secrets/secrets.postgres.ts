import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { SecretRow, SecretsStore } from "./secrets.store.ts";

type Row = Record<string, unknown>;

const toSecret = (row: Row): SecretRow => ({
  id: row.id as string,
  organizationId: row.organization_id as string,
  name: row.name as string,
  sealedValue: row.sealed_value as string,
  createdAt: row.created_at as string,
  updatedAt: row.updated_at as string,
});

/**
 * The secrets room's store over PostgreSQL. The unique (organization, name) index decides a race
 * of two inserts of one name: the later one does nothing, as on SQLite.
 */
export function createSecretsPostgresStore(pg: PostgresDb): SecretsStore {
  const { sql } = pg;
  return {
    insert: async (row) => {
      const inserted = await sql`
        INSERT INTO secrets (id, organization_id, name, sealed_value, created_at, updated_at)
        VALUES (${row.id}, ${row.organizationId}, ${row.name}, ${row.sealedValue},
          ${row.createdAt}, ${row.updatedAt})
        ON CONFLICT (organization_id, name) DO NOTHING
        RETURNING id`;
      return inserted.length > 0;
    },
    find: async (organizationId, name) => {
      const [row] = await sql`
        SELECT * FROM secrets WHERE organization_id = ${organizationId} AND name = ${name}`;
      return row ? toSecret(row) : null;
    },
    list: async (organizationId) =>
      (
        await sql`SELECT * FROM secrets WHERE organization_id = ${organizationId}
                  ORDER BY created_at DESC, name`
      ).map(toSecret),
    updateValue: async (organizationId, name, sealedValue, updatedAt) => {
      const updated = await sql`
        UPDATE secrets SET sealed_value = ${sealedValue}, updated_at = ${updatedAt}
        WHERE organization_id = ${organizationId} AND name = ${name}
        RETURNING id`;
      return updated.length > 0;
    },
    remove: async (organizationId, name) => {
      const removed = await sql`
        DELETE FROM secrets WHERE organization_id = ${organizationId} AND name = ${name}
        RETURNING id`;
      return removed.length > 0;
    },
  };
}
