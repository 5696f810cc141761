import { afterAll } from "bun:test";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createSubscribersPostgresStore } from "./status-pages.subscribers.postgres.ts";
import { createSubscribersSqliteStore } from "./status-pages.subscribers.sqlite.ts";
import { describeSubscribersStore, SEED_SQL } from "./status-pages.subscribers.store.contract.ts";

const sqliteDbs: TestDb[] = [];
const databases = usePgDatabases();
let pg: PostgresDb | undefined;
// Registered after usePgDatabases: the pool closes before the database is dropped.
afterAll(async () => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
  await pg?.close();
});

describeSubscribersStore("SQLite", async () => {
  const db = createTestDb();
  sqliteDbs.push(db);
  db.sqlite.run(SEED_SQL);
  return createSubscribersSqliteStore(db);
});

/** One migrated database for the file; each test starts from the seed rows alone. */
async function seededPostgres(): Promise<PostgresDb> {
  pg ??= await openMigratedPgDatabase(databases);
  await pg.sql`TRUNCATE organizations CASCADE`;
  await pg.sql.unsafe(SEED_SQL);
  return pg;
}

describeSubscribersStore("PostgreSQL", async () =>
  createSubscribersPostgresStore(await seededPostgres()),
);
