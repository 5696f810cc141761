import { afterAll } from "bun:test";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createAuthPostgresStore } from "./auth.postgres.ts";
import { createAuthSqliteStore } from "./auth.sqlite.ts";
import { describeAuthStore } from "./auth.store.contract.ts";

const sqliteDbs: TestDb[] = [];
const databases = usePgDatabases();
let pg: PostgresDb | undefined;
// Registered after usePgDatabases: the pool closes before the database is dropped.
afterAll(async () => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
  await pg?.close();
});

describeAuthStore("SQLite", async (onKeyEvent) => {
  const db = createTestDb();
  sqliteDbs.push(db);
  return createAuthSqliteStore(db, { keyEvents: (_tx, event) => onKeyEvent(event) });
});

/** One migrated database for the file; each test starts with the room's tables empty. */
async function emptyPostgres(): Promise<PostgresDb> {
  pg ??= await openMigratedPgDatabase(databases);
  await pg.sql`TRUNCATE users, organizations CASCADE`;
  return pg;
}

describeAuthStore("PostgreSQL", async (onKeyEvent) =>
  createAuthPostgresStore(await emptyPostgres(), {
    keyEvents: async (_tx, event) => onKeyEvent(event),
  }),
);
