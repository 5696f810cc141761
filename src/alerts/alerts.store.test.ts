import { afterAll, afterEach } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { type TestPgDatabase, usePgDatabases } from "../test-utils/postgres.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createAlertsPostgresStore } from "./alerts.postgres.ts";
import { createAlertsSqliteStore } from "./alerts.sqlite.ts";
import { describeAlertsStore } from "./alerts.store.contract.ts";

const sqliteDbs: TestDb[] = [];
afterEach(() => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
});

describeAlertsStore("SQLite", async () => {
  const db = createTestDb();
  sqliteDbs.push(db);
  return {
    store: createAlertsSqliteStore(db),
    // One process holds one SQLite writer: other "nodes" share its connection.
    otherNodes: async (n) => Array.from({ length: n }, () => createAlertsSqliteStore(db)),
    // The fixture's `$1` parameters are SQLite's `?1`.
    run: async (sql, params = []) =>
      db.sqlite.query(sql.replace(/\$(\d+)/g, "?$1")).all(...(params as never[])),
  };
});

// Pools close before their database is dropped (hooks run in the order they were added).
let shared: Promise<{ made: TestPgDatabase; pg: PostgresDb }> | null = null;
const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});
const databases = usePgDatabases();
/** The file's database, migrated once; each test empties the room's tables first. */
function database() {
  shared ??= databases.create().then(async (made) => {
    const pg = await openPostgres(made.url, { poolSize: 8 });
    pools.push(pg);
    await runPgMigrations(pg.sql, PG_MIGRATIONS);
    return { made, pg };
  });
  return shared;
}

describeAlertsStore("PostgreSQL", async () => {
  const { made, pg } = await database();
  await pg.sql`TRUNCATE organizations, alert_rules, alert_firings CASCADE`;
  return {
    store: createAlertsPostgresStore(pg),
    otherNodes: async (n) => {
      const nodes = [];
      for (let i = 0; i < n; i++) {
        // A client of its own per node: its own pool and connections.
        const node = await openPostgres(made.url, { poolSize: 2 });
        pools.push(node);
        nodes.push(createAlertsPostgresStore(node));
      }
      return nodes;
    },
    run: (sql, params = []) => pg.sql.unsafe(sql, params as never[]),
  };
});
