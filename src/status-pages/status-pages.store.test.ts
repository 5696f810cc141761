import { afterAll } from "bun:test";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createStatusPagesPostgresStore } from "./status-pages.postgres.ts";
import { createStatusPagesSqliteStore } from "./status-pages.sqlite.ts";
import { describeStatusPagesStore, SEED_SQL } from "./status-pages.store.contract.ts";

const sqliteDbs: TestDb[] = [];
const databases = usePgDatabases();
let pg: PostgresDb | undefined;
// Registered after usePgDatabases: the pool closes before the database is dropped.
afterAll(async () => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
  await pg?.close();
});

describeStatusPagesStore("SQLite", async () => {
  const db = createTestDb();
  sqliteDbs.push(db);
  db.sqlite.run(SEED_SQL);
  return createStatusPagesSqliteStore(db);
});

/** One migrated database for the file; each test starts from the seed rows alone. */
async function seededPostgres(): Promise<PostgresDb> {
  pg ??= await openMigratedPgDatabase(databases);
  await pg.sql`TRUNCATE organizations CASCADE`;
  await pg.sql.unsafe(SEED_SQL);
  return pg;
}

describeStatusPagesStore("PostgreSQL", async () =>
  createStatusPagesPostgresStore(await seededPostgres()),
);
