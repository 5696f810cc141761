import { afterAll } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
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
  if (!pg) {
    const { url } = await databases.create();
    pg = await openPostgres(url, { poolSize: 4 });
    await runPgMigrations(pg.sql, PG_MIGRATIONS);
  }
  await pg.sql`TRUNCATE users, organizations CASCADE`;
  return pg;
}

describeAuthStore("PostgreSQL", async (onKeyEvent) =>
  createAuthPostgresStore(await emptyPostgres(), {
    keyEvents: async (_tx, event) => onKeyEvent(event),
  }),
);
