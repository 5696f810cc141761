import { afterAll, afterEach } from "bun:test";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createIssuesPostgresStore } from "./issues.postgres.ts";
import { createIssuesSqliteStore } from "./issues.sqlite.ts";
import { describeIssuesStore, type IssuesStoreFixture } from "./issues.store.contract.ts";
import { describeIssuesStoreRaces } from "./issues.store.races.contract.ts";

const CREATED = "2026-01-01T00:00:00.000Z";

/** A source, a bridge of it and one destination of that bridge, as the routing room keeps them. */
async function addRoute(
  run: (sql: string, params: unknown[]) => Promise<unknown>,
  organizationId: string,
  destinationId: string,
): Promise<string> {
  const sourceId = `source-of-${destinationId}`;
  const bridgeId = `bridge-of-${destinationId}`;
  await run(
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
     VALUES ($1, $2, $1, 'webhook', $1, $3, $3)`,
    [sourceId, organizationId, CREATED],
  );
  await run(
    `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
     VALUES ($1, $2, $3, $1, 'active', $4, $4)`,
    [bridgeId, organizationId, sourceId, CREATED],
  );
  await run(
    `INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, url,
       max_retries, filters, created_at, updated_at)
     VALUES ($1, $2, $3, $1, 'http', 'normal', 'https://example.com', 0, '[]', $4, $4)`,
    [destinationId, bridgeId, organizationId, CREATED],
  );
  return bridgeId;
}

const sqliteDbs: TestDb[] = [];
afterEach(() => {
  for (const db of sqliteDbs.splice(0)) db.destroy();
});

async function sqliteFixture(): Promise<IssuesStoreFixture> {
  const db = createTestDb();
  sqliteDbs.push(db);
  // The fixture's `$1` parameters are SQLite's `?1`.
  const run = async (sql: string, params: unknown[] = []) =>
    db.sqlite.query(sql.replace(/\$(\d+)/g, "?$1")).all(...(params as never[]));
  return {
    store: createIssuesSqliteStore(db),
    // One process holds one SQLite writer: other "nodes" share its connection.
    otherNodes: async (n) => Array.from({ length: n }, () => createIssuesSqliteStore(db)),
    addOrganizations: async (ids) => {
      for (const id of ids) {
        await run(
          "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ($1, $1, 'free', $2, $2)",
          [id, CREATED],
        );
      }
    },
    addDestination: (organizationId, destinationId) => addRoute(run, organizationId, destinationId),
    run,
  };
}

// Pools close before their database is dropped (hooks run in the order they were added).
const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});
const databases = usePgDatabases();
let shared: ReturnType<typeof openMigratedPgDatabase> | null = null;

async function postgresFixture(): Promise<IssuesStoreFixture> {
  shared ??= openMigratedPgDatabase(databases, { poolSize: 8 }).then((pg) => {
    pools.push(pg);
    return pg;
  });
  const pg = await shared;
  // TRUNCATE fires no row trigger: the status counts are emptied with the issues they counted.
  await pg.sql`TRUNCATE organizations, issues, issue_samples, issue_status_counts CASCADE`;
  const run = async (sql: string, params: unknown[] = []) => pg.sql.unsafe(sql, params as never[]);
  return {
    store: createIssuesPostgresStore(pg),
    otherNodes: async (n) => {
      const nodes = [];
      for (let i = 0; i < n; i++) {
        // A client of its own per node: its own pool and connections.
        const node = await openPostgres(pg.url, { poolSize: 2 });
        pools.push(node);
        nodes.push(createIssuesPostgresStore(node));
      }
      return nodes;
    },
    addOrganizations: async (ids) => {
      for (const id of ids) {
        await pg.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
                     VALUES (${id}, ${id}, 'free', ${CREATED}, ${CREATED})`;
      }
    },
    addDestination: (organizationId, destinationId) => addRoute(run, organizationId, destinationId),
    run,
  };
}

describeIssuesStore("SQLite", sqliteFixture);
describeIssuesStoreRaces("SQLite", sqliteFixture);
describeIssuesStore("PostgreSQL", postgresFixture);
describeIssuesStoreRaces("PostgreSQL", postgresFixture);
