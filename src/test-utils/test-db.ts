import { afterEach } from "bun:test";
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
function migrateUpTo(sqlite: Db["sqlite"], name: string): void {
  const at = MIGRATIONS.findIndex((m) => m.name === name);
  if (at <= 0) throw new Error(`no migration ${name} after the first`);
  runMigrations(sqlite, MIGRATIONS.slice(0, at));
}

/**
 * For a migration test (call it at the top of a file or a describe): opens a real database in a temp dir at
 * the schema just before `migration` (see migrateUpTo); each one is closed and removed after
 * its test.
 */
export function useDatabasesBefore(migration: string): () => Db {
  const made: TestDb[] = [];
  afterEach(() => {
    for (const db of made.splice(0)) db.destroy();
  });
  return () => {
    const db = createTestDb([]);
    made.push(db);
    migrateUpTo(db.sqlite, migration);
    return db;
  };
}

/** A real SQLite file in a temp dir with `migrations` applied (by default every real one). */
export function createTestDb(migrations = MIGRATIONS): TestDb {
  const dir = makeTempDir("weir-db-");
  const db = openDatabase(dir.path, "normal");
  runMigrations(db.sqlite, migrations);
  return {
    ...db,
    dir: dir.path,
    destroy() {
      db.close();
      dir.remove();
    },
  };
}
