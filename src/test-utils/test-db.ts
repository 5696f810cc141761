import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { type Db, openDatabase } from "../db/db.open.ts";
import { makeTempDir } from "./temp-dir.ts";

export interface TestDb extends Db {
  dir: string;
  /** Closes the database and removes its directory. */
  destroy(): void;
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
