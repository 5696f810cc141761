import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { type Db, openDatabase } from "../db/db.open.ts";
import { makeTempDir } from "./temp-dir.ts";

export interface TestDb extends Db {
  dir: string;
  /** Closes the database and removes its directory. */
  destroy(): void;
}

/**
 * Applies every migration before `name` (the schema an existing data dir had before it), so a
 * test can store rows the old way and then migrate them. Throws on a name that is not a later
 * migration.
 */
export function migrateUpTo(sqlite: Db["sqlite"], name: string): void {
  const at = MIGRATIONS.findIndex((m) => m.name === name);
  if (at <= 0) throw new Error(`no migration ${name} after the first`);
  runMigrations(sqlite, MIGRATIONS.slice(0, at));
}

/** A real SQLite file in a temp dir with every real migration applied. */
export function createTestDb(): TestDb {
  const dir = makeTempDir("weir-db-");
  const db = openDatabase(dir.path, "normal");
  runMigrations(db.sqlite, MIGRATIONS);
  return {
    ...db,
    dir: dir.path,
    destroy() {
      db.close();
      dir.remove();
    },
  };
}
