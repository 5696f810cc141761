import { afterAll, expect, test } from "bun:test";
import { createCapturePostgresWriter } from "../capture/capture-writer.postgres.ts";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import { createActionsPostgresStore } from "./actions.postgres.ts";
import type { RunRecord, RunRecorder } from "./actions.recorder.ts";
import { createRunRecorderPostgres } from "./actions-recorder.postgres.ts";

const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pg of pools.splice(0)) await pg.close();
});
const databases = usePgDatabases();
const T0 = "2026-01-01T00:00:00.000Z";
const RUNS = 5;

/** A database with endpoint e1 and captures r0…r4, and a pool whose first `begin` fails. */
async function world() {
  const made = await databases.create();
  const pg = await openPostgres(made.url, { poolSize: 3 });
  pools.push(pg);
  await runPgMigrations(pg.sql, PG_MIGRATIONS);
  await pg.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES ('o1', 'org', 'team', ${T0}, ${T0})`;
  await pg.sql`INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at)
    VALUES ('e1', 'o1', 'e1', 'slug-e1', 'active', ${T0}, ${T0})`;
  const writer = createCapturePostgresWriter({ pg, onCommitted: () => {} });
  const e1 = { id: "e1", organizationId: "o1", slug: "slug-e1", forwardUrl: null };
  for (let i = 0; i < RUNS; i++) {
    await writer.write(makeCapturedRequest({ id: `r${i}`, endpointId: "e1", createdAt: T0 }), e1);
  }
  await writer.close();
  let begins = 0;
  const failingOnce = new Proxy(pg.sql, {
    get(target, property, receiver) {
      if (property !== "begin") return Reflect.get(target, property, receiver);
      return (...args: unknown[]) => {
        begins += 1;
        if (begins === 1) return Promise.reject(new Error("connection lost"));
        return Reflect.apply(target.begin, target, args);
      };
    },
  });
  return { pg, failing: { ...pg, sql: failingOnce } };
}

/**
 * One run of e1 as the runs of an endpoint go: it reads the variables, counts one up and submits
 * its record, whose outcome comes once it committed.
 */
async function runOnce(recorder: RunRecorder, i: number): Promise<{ outcome: Promise<boolean> }> {
  const { values, generation } = await recorder.variablesOf("e1");
  const record: RunRecord = {
    id: `run-${i}`,
    requestId: `r${i}`,
    endpointId: "e1",
    trigger: "capture",
    results: [],
    stores: [{ name: "count", value: (Number(values.count) || 0) + 1 }],
    createdAt: T0,
    generation,
  };
  return { outcome: recorder.submit(record) };
}

test("records commit in order with the variables their runs counted; a failed batch's values and the runs that read them are not written", async () => {
  const { pg, failing } = await world();
  const store = createActionsPostgresStore(pg);
  const committed: string[] = [];
  const recorder = createRunRecorderPostgres({
    pg: failing,
    store,
    committed: (record) => committed.push(record.requestId),
    onHookError: () => {},
  });
  // The first run's batch fails: neither it nor the run that read its count is written.
  const first = (await runOnce(recorder, 0)).outcome.catch(() => "rejected");
  const second = (await runOnce(recorder, 1)).outcome.catch(() => "rejected");
  expect([await first, await second]).toContain("rejected");
  expect(await store.variables("e1")).toEqual({});
  expect(committed).toEqual([]);
  // The next runs start from the committed values again; each reads the count of the one before
  // it, committed or not yet.
  const later: Promise<boolean>[] = [];
  for (let i = 2; i < RUNS; i++) later.push((await runOnce(recorder, i)).outcome);
  expect(await Promise.all(later)).toEqual([true, true, true]);
  expect(committed).toEqual(["r2", "r3", "r4"]);
  expect(await store.variables("e1")).toEqual({ count: 3 });
  const rows = await pg.sql`SELECT request_id FROM action_runs ORDER BY request_id`;
  expect(rows.map((row: { request_id: string }) => row.request_id)).toEqual(["r2", "r3", "r4"]);
  await recorder.close();
});

test("a run whose read of the variables overlaps the commit of the run before it still counts on from that run", async () => {
  const { pg } = await world();
  const store = createActionsPostgresStore(pg);
  let before: Promise<boolean> | null = null;
  // The read is answered from the table as it was, and only after the batch before it committed
  // and left this node's pending values: the moment a run could lose the one before it.
  const lagging = {
    variables: async (endpointId: string) => {
      const values = await store.variables(endpointId);
      if (before) await before;
      return values;
    },
  };
  const recorder = createRunRecorderPostgres({
    pg,
    store: lagging,
    committed: () => {},
    onHookError: () => {},
  });
  before = (await runOnce(recorder, 0)).outcome;
  const second = (await runOnce(recorder, 1)).outcome;
  expect([await before, await second]).toEqual([true, true]);
  expect(await store.variables("e1")).toEqual({ count: 2 });
  await recorder.close();
});
