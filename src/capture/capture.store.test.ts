import { afterAll, afterEach } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { DrainingEndpoint } from "../endpoints/endpoints.model.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createCapturePostgresStore } from "./capture.postgres.ts";
import { createCaptureSqliteStore } from "./capture.sqlite.ts";
import { describeCaptureStore } from "./capture.store.contract.ts";

const sqliteDbs: TestDb[] = [];
afterEach(() => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
});

describeCaptureStore("SQLite", async () => {
  const db = createTestDb();
  sqliteDbs.push(db);
  const forgotten: string[][] = [];
  const finished: DrainingEndpoint[] = [];
  const store = createCaptureSqliteStore(db, {
    forgetForwards: (_tx, ids) => forgotten.push([...ids]),
    finishDrain: (_tx, endpoint) => finished.push(endpoint),
  });
  return {
    store,
    forgotten,
    finished,
    // The fixture's `$1` parameters are SQLite's `?1`.
    run: async (sql, params = []) =>
      db.sqlite.query(sql.replace(/\$(\d+)/g, "?$1")).all(...(params as never[])) as Record<
        string,
        unknown
      >[],
  };
});

const databases = usePgDatabases();
const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pg of pools.splice(0)) await pg.close();
});

describeCaptureStore("PostgreSQL", async () => {
  const database = await databases.create();
  const pg = await openPostgres(database.url, { poolSize: 4 });
  pools.push(pg);
  await runPgMigrations(pg.sql, PG_MIGRATIONS);
  const forgotten: string[][] = [];
  const finished: DrainingEndpoint[] = [];
  const store = createCapturePostgresStore(pg, {
    forgetForwards: async (_tx, ids) => {
      forgotten.push([...ids]);
    },
    finishDrain: async (_tx, endpoint) => {
      finished.push(endpoint);
    },
  });
  return {
    store,
    forgotten,
    finished,
    run: async (sql, params = []) => [...(await pg.sql.unsafe(sql, params))],
  };
});
