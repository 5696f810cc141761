import { afterAll } from "bun:test";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createIncidentsPostgresStore } from "./incidents.postgres.ts";
import { createIncidentsSqliteStore } from "./incidents.sqlite.ts";
import { describeIncidentsStore } from "./incidents.store.contract.ts";

const sqliteDbs: TestDb[] = [];
const databases = usePgDatabases();
let pg: PostgresDb | undefined;
// Registered after usePgDatabases: the pool closes before the database is dropped.
afterAll(async () => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
  await pg?.close();
});

const CREATED = "2026-01-01T00:00:00.000Z";

describeIncidentsStore("SQLite", async () => {
  const db = createTestDb();
  sqliteDbs.push(db);
  return {
    store: createIncidentsSqliteStore(db),
    async addPage(pageId) {
      db.sqlite
        .prepare(
          "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, 'free', ?, ?)",
        )
        .run(`o-${pageId}`, `Org ${pageId}`, CREATED, CREATED);
      db.sqlite
        .prepare(
          `INSERT INTO status_pages (id, organization_id, name, slug, primary_color, created_at, updated_at)
           VALUES (?, ?, ?, ?, '#000000', ?, ?)`,
        )
        .run(pageId, `o-${pageId}`, `Page ${pageId}`, pageId, CREATED, CREATED);
    },
  };
});

/** One migrated database for the file; each test starts with no organizations (and so no pages). */
async function emptyPostgres(): Promise<PostgresDb> {
  pg ??= await openMigratedPgDatabase(databases);
  await pg.sql`TRUNCATE organizations CASCADE`;
  return pg;
}

describeIncidentsStore("PostgreSQL", async () => {
  const db = await emptyPostgres();
  return {
    store: createIncidentsPostgresStore(db),
    async addPage(pageId) {
      await db.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
        VALUES (${`o-${pageId}`}, ${`Org ${pageId}`}, 'free', ${CREATED}, ${CREATED})`;
      await db.sql`INSERT INTO status_pages (id, organization_id, name, slug, primary_color,
          created_at, updated_at)
        VALUES (${pageId}, ${`o-${pageId}`}, ${`Page ${pageId}`}, ${pageId}, '#000000', ${CREATED}, ${CREATED})`;
    },
  };
});
