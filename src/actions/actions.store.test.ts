import { createCapturePostgresWriter } from "../capture/capture-writer.postgres.ts";
import type { Db } from "../db/db.open.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import {
  insertCapturedRequest,
  insertEndpoint,
  makeCapturedRequest,
} from "../test-utils/requests-fixtures.ts";
import { sqliteStoreDatabase, usePgStoreDatabase } from "../test-utils/store-databases.ts";
import type { ActionResult } from "./actions.model.ts";
import { createActionsPostgresStore } from "./actions.postgres.ts";
import { createActionsRepo } from "./actions.repo.ts";
import { createActionsSqliteStore } from "./actions.sqlite.ts";
import { describeActionsStore } from "./actions.store.contract.ts";
import { recordRunsPostgres } from "./actions-record.postgres.ts";

const T0 = "2026-01-01T00:00:00.000Z";
const pgDatabase = usePgStoreDatabase();

describeActionsStore("SQLite", async () => {
  const { db, ...rest } = await sqliteStoreDatabase();
  const repo = createActionsRepo(db);
  const stored = new Set<string>();
  return {
    ...rest,
    store: createActionsSqliteStore(db),
    addEndpoint: async (organizationId, id) => insertEndpoint(db as Db, { id, organizationId }),
    async addRun(endpointId, requestId, runId, results: ActionResult[]) {
      if (!stored.has(requestId)) insertCapturedRequest(db, { id: requestId, endpointId });
      stored.add(requestId);
      repo.insertRun({
        id: runId,
        requestId,
        endpointId,
        trigger: "capture",
        results,
        createdAt: T0,
      });
    },
    setVariable: async (endpointId, name, value) => repo.setVariable(endpointId, name, value, T0),
  };
});

describeActionsStore("PostgreSQL", async () => {
  const { db, ...rest } = await pgDatabase();
  const pg: PostgresDb = db;
  const writer = createCapturePostgresWriter({ pg, onCommitted: () => {} });
  const stored = new Set<string>();
  const record = (
    endpointId: string,
    requestId: string,
    runId: string,
    results: ActionResult[],
    stores: { name: string; value: unknown }[],
  ) =>
    pg.sql.begin((tx) =>
      recordRunsPostgres(tx, [
        {
          id: runId,
          requestId,
          endpointId,
          trigger: "capture",
          results,
          stores,
          createdAt: T0,
          generation: 0,
        },
      ]),
    );
  return {
    ...rest,
    close: async () => {
      await writer.close();
      await rest.close();
    },
    store: createActionsPostgresStore(pg),
    async addEndpoint(organizationId, id) {
      await pg.sql`INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at)
        VALUES (${id}, ${organizationId}, ${id}, ${`slug-${id}`.toLowerCase()}, 'active', ${T0}, ${T0})`;
    },
    async addRun(endpointId, requestId, runId, results) {
      if (!stored.has(requestId)) {
        const target = { id: endpointId, organizationId: null, slug: "", forwardUrl: null };
        await writer.write(makeCapturedRequest({ id: requestId, endpointId }), target);
      }
      stored.add(requestId);
      await record(endpointId, requestId, runId, results, []);
    },
    async setVariable(endpointId, name, value) {
      await pg.sql`INSERT INTO endpoint_variables (endpoint_id, name, value, updated_at)
        VALUES (${endpointId}, ${name}, ${JSON.stringify(value)}, ${T0})`;
    },
  };
});
