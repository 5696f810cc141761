import { afterAll, afterEach, expect, test } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { type TestPgDatabase, usePgDatabases } from "../test-utils/postgres.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createAlertsPostgresStore, createPostgresMailCounter } from "./alerts.postgres.ts";
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

test("on PostgreSQL, nodes share an organization's mails of an hour; the next hour starts afresh", async () => {
  const { made, pg } = await database();
  const other = await openPostgres(made.url, { poolSize: 2 });
  pools.push(other);
  let hour = 500_000;
  const nodeA = createPostgresMailCounter(pg, () => hour, 3);
  const nodeB = createPostgresMailCounter(other, () => hour, 3);
  const takes = await Promise.all(
    [nodeA, nodeB, nodeA, nodeB, nodeA, nodeB].map((take) => take("org-a")),
  );
  expect(takes.filter(Boolean).length).toBe(3);
  expect(await nodeB("org-b")).toBe(true);
  hour += 1;
  expect(await nodeB("org-a")).toBe(true);
  // The first take of a new hour swept the past hour's rows.
  const keys = await pg.sql`SELECT key FROM rate_buckets WHERE key LIKE 'alerts.mail:%'`;
  expect(keys.map((row: { key: string }) => row.key)).toEqual(["alerts.mail:000000500001:org-a"]);
});
