import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createTestDb } from "../test-utils/test-db.ts";
import type { EndpointRefusals } from "./endpoints.model.ts";
import { createEndpointsPostgresStore, finishDrainOnPostgres } from "./endpoints.postgres.ts";
import { createEndpointsSqliteStore } from "./endpoints.sqlite.ts";
import { describeEndpointsStore } from "./endpoints.store.contract.ts";

const databases = usePgDatabases();

describeEndpointsStore("SQLite", async () => {
  const db = createTestDb();
  const { store, repo } = createEndpointsSqliteStore(db);
  return {
    store,
    reset: async () => {
      db.sqlite.run("DELETE FROM debug_endpoints");
      db.sqlite.run("DELETE FROM organizations");
    },
    addOrganization: async (id) => {
      db.sqlite.run(
        "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES (?, ?, 'team', ?, ?)",
        [id, id, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z"],
      );
    },
    addRequest: async (endpointId, id, createdAt) => {
      db.sqlite.run(
        `INSERT INTO captured_requests (id, endpoint_id, method, path, query_string, raw_headers,
           body, content_type, size, remote_ip, status, created_at)
         VALUES (?, ?, 'POST', '', '', '[]', x'', NULL, 0, NULL, 200, ?)`,
        [id, endpointId, createdAt],
      );
      db.sqlite.run("UPDATE debug_endpoints SET request_count = request_count + 1 WHERE id = ?", [
        endpointId,
      ]);
    },
    addRefusals: async (endpointId, refusals: EndpointRefusals) => {
      db.sqlite.run(
        "INSERT INTO capture_refusals (endpoint_id, rate_limited, too_large, last_refused_at) VALUES (?, ?, ?, ?)",
        [endpointId, refusals.rateLimited, refusals.tooLarge, refusals.lastRefusedAt],
      );
    },
    finishDrain: async (endpoint) => db.tx(() => repo.finishDrain(endpoint)),
    rowExists: async (id) =>
      db.sqlite.query("SELECT 1 FROM debug_endpoints WHERE id = ?").get(id) !== null,
    close: async () => db.destroy(),
  };
});

describeEndpointsStore("PostgreSQL", async () => {
  const pg = await openMigratedPgDatabase(databases, { poolSize: 6 });
  const { sql } = pg;
  const store = createEndpointsPostgresStore(pg);
  return {
    store,
    reset: async () => {
      // Deleting cascades to requests and refusals; cheaper than a TRUNCATE of every table.
      await sql`DELETE FROM debug_endpoints`;
      await sql`DELETE FROM organizations`;
    },
    addOrganization: async (id) => {
      await sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
        VALUES (${id}, ${id}, 'team', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`;
    },
    addRequest: async (endpointId, id, createdAt) => {
      await sql`INSERT INTO captured_requests (id, endpoint_id, method, path, query_string,
          raw_headers, body, content_type, size, remote_ip, status, created_at)
        VALUES (${id}, ${endpointId}, 'POST', '', '', '[]', '\\x'::bytea, NULL, 0, NULL, 200, ${createdAt})`;
      await sql`UPDATE debug_endpoints SET request_count = request_count + 1 WHERE id = ${endpointId}`;
    },
    addRefusals: async (endpointId, refusals: EndpointRefusals) => {
      await sql`INSERT INTO capture_refusals (endpoint_id, rate_limited, too_large, last_refused_at)
        VALUES (${endpointId}, ${refusals.rateLimited}, ${refusals.tooLarge}, ${refusals.lastRefusedAt})`;
    },
    finishDrain: (endpoint) => sql.begin((tx) => finishDrainOnPostgres(tx, endpoint)),
    rowExists: async (id) => (await sql`SELECT 1 FROM debug_endpoints WHERE id = ${id}`).length > 0,
    close: () => pg.close(),
  };
});
