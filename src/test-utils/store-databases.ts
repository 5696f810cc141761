import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import type { Db } from "../db/db.open.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "./postgres.ts";
import { createTestDb } from "./test-db.ts";

const CREATED = "2026-01-01T00:00:00.000Z";

/** What a store contract test runs over: a migrated database, and organizations to scope rows to. */
export interface StoreDatabase<D> {
  db: D;
  addOrganizations(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

/** A real SQLite file in a temp dir with every migration applied. */
export async function sqliteStoreDatabase(): Promise<StoreDatabase<Db>> {
  const db = createTestDb();
  const insert = db.sqlite.prepare(
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, 'free', ?, ?)",
  );
  return {
    db,
    addOrganizations: async (ids) => {
      for (const id of ids) insert.run(id, id, CREATED, CREATED);
    },
    close: async () => db.destroy(),
  };
}

/**
 * For a test file: a fresh PostgreSQL database of its own with the PostgreSQL migrations
 * applied, opened as `weir serve --database` opens it. Call at the top of the file.
 */
export function usePgStoreDatabase(): () => Promise<StoreDatabase<PostgresDb>> {
  const databases = usePgDatabases();
  return async () => {
    const made = await databases.create();
    const pg = await openPostgres(made.url, { poolSize: 8 });
    await runPgMigrations(pg.sql, PG_MIGRATIONS);
    return {
      db: pg,
      addOrganizations: async (ids) => {
        for (const id of ids) {
          await pg.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
                       VALUES (${id}, ${id}, 'free', ${CREATED}, ${CREATED})`;
        }
      },
      close: () => pg.close(),
    };
  };
}
