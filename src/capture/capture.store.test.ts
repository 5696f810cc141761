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

// The pool closes before its database is dropped (hooks run in the order they were added).
let shared: Promise<PostgresDb> | null = null;
afterAll(async () => {
  if (shared) await (await shared).close();
});
const databases = usePgDatabases();
/** The file's database, migrated once; each test empties the room's tables first. */
function database(): Promise<PostgresDb> {
  shared ??= databases.create().then(async (made) => {
    const pg = await openPostgres(made.url, { poolSize: 4 });
    await runPgMigrations(pg.sql, PG_MIGRATIONS);
    return pg;
  });
  return shared;
}

describeCaptureStore("PostgreSQL", async () => {
  const pg = await database();
  await pg.sql`TRUNCATE organizations, debug_endpoints, captured_requests, capture_refusals CASCADE`;
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
