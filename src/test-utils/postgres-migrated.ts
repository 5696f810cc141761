import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { TestPgDatabase } from "./postgres.ts";

/**
 * A fresh database of the test file (from `usePgDatabases()`) with every PostgreSQL migration
 * applied, opened as the stores get it. Close it before the file ends (the database is dropped
 * after the file either way).
 */
export async function openMigratedPgDatabase(
  databases: { create(): Promise<TestPgDatabase> },
  options: { poolSize?: number } = {},
): Promise<PostgresDb & { url: string; name: string }> {
  const db = await databases.create();
  const pg = await openPostgres(db.url, { poolSize: options.poolSize ?? 4 });
  try {
    await runPgMigrations(pg.sql, PG_MIGRATIONS);
  } catch (error) {
    await pg.close();
    throw error;
  }
  return { ...pg, url: db.url, name: db.name };
}
