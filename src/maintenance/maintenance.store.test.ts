import { afterAll, afterEach } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createMaintenancePostgresStore } from "./maintenance.postgres.ts";
import { createMaintenanceSqliteStore } from "./maintenance.sqlite.ts";
import { describeMaintenanceStore } from "./maintenance.store.contract.ts";

const sqliteDbs: TestDb[] = [];
afterEach(() => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
});

describeMaintenanceStore("SQLite", async () => {
  const db = createTestDb();
  sqliteDbs.push(db);
  const told: string[] = [];
  return {
    store: createMaintenanceSqliteStore(db, { windowCreated: (_tx, w) => told.push(w.id) }),
    told,
    // The fixture's `$1` parameters are SQLite's `?1`.
    run: async (sql, params = []) =>
      db.sqlite.query(sql.replace(/\$(\d+)/g, "?$1")).all(...(params as never[])) as Record<
        string,
        unknown
      >[],
  };
});

// The pool closes before its database is dropped (hooks run in the order they were added).
let shared: Promise<PostgresDb> | null = null;
afterAll(async () => {
  if (shared) await (await shared).close();
});
const databases = usePgDatabases();
/** The file's database, migrated once; each test empties the room's tables first. */
function database(): Promise<PostgresDb> {
  shared ??= databases.create().then(async (made) => {
    const pg = await openPostgres(made.url, { poolSize: 8 });
    await runPgMigrations(pg.sql, PG_MIGRATIONS);
    return pg;
  });
  return shared;
}

describeMaintenanceStore("PostgreSQL", async () => {
  const pg = await database();
  await pg.sql`TRUNCATE organizations, maintenance_windows CASCADE`;
  const told: string[] = [];
  return {
    store: createMaintenancePostgresStore(pg, {
      windowCreated: async (_tx, w) => {
        told.push(w.id);
      },
    }),
    told,
    run: async (sql, params = []) => [...(await pg.sql.unsafe(sql, params as never[]))],
  };
});
