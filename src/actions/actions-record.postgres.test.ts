import { afterAll, expect, test } from "bun:test";
import { createCapturePostgresWriter } from "../capture/capture-writer.postgres.ts";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import type { RunRecord } from "./actions.recorder.ts";
import { oweActionRunsPostgres } from "./actions-owed.postgres.ts";
import { recordRunsPostgres } from "./actions-record.postgres.ts";

const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pg of pools.splice(0)) await pg.close();
});
const databases = usePgDatabases();
const T0 = "2026-01-01T00:00:00.000Z";
const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;

/** Two nodes' pools over one database: endpoint e1 with a chain and captures r1…r3 owed their runs. */
async function world() {
  const made = await databases.create();
  const a = await openPostgres(made.url, { poolSize: 2 });
  const b = await openPostgres(made.url, { poolSize: 2 });
  pools.push(a, b);
  await runPgMigrations(a.sql, PG_MIGRATIONS);
  await a.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES ('o1', 'org', 'team', ${T0}, ${T0})`;
  await a.sql`INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at)
    VALUES ('e1', 'o1', 'e1', 'slug-e1', 'active', ${T0}, ${T0})`;
  await a.sql`INSERT INTO endpoint_actions (id, organization_id, endpoint_id, type, name, config,
      position, enabled, created_at, updated_at)
    VALUES ('a1', 'o1', 'e1', 'respond', 'answer', '{}', 0, 1, ${T0}, ${T0})`;
  const writer = createCapturePostgresWriter({
    pg: a,
    onCommitted: () => {},
    oweActionRuns: oweActionRunsPostgres,
  });
  const e1 = { id: "e1", organizationId: "o1", slug: "slug-e1", forwardUrl: null };
  await Promise.all(
    ["r1", "r2", "r3"].map((id) =>
      writer.write(makeCapturedRequest({ id, endpointId: "e1", createdAt: T0 }), e1),
    ),
  );
  await writer.close();
  return { a, b };
}

const run = (requestId: string, second: number, count: number): RunRecord => ({
  id: `run-${requestId}-${second}`,
  requestId,
  endpointId: "e1",
  trigger: "capture",
  results: [],
  stores: [{ name: "count", value: count }],
  createdAt: at(second),
  generation: 0,
});

const variable = async (pg: PostgresDb) =>
  (await pg.sql`SELECT value, updated_at FROM endpoint_variables WHERE endpoint_id = 'e1'`)[0];

test("a batch writes its runs, settles what they were owed and each variable once, with its last value", async () => {
  const { a } = await world();
  const kept = await a.sql.begin((tx) =>
    recordRunsPostgres(tx, [run("r1", 1, 1), run("gone", 2, 2), run("r2", 3, 3)]),
  );
  expect(kept).toEqual([true, false, true]);
  const runs = await a.sql`SELECT request_id FROM action_runs ORDER BY request_id`;
  expect(runs.map((r: { request_id: string }) => r.request_id)).toEqual(["r1", "r2"]);
  const owed = await a.sql`SELECT request_id FROM action_runs_due ORDER BY request_id`;
  expect(owed.map((r: { request_id: string }) => r.request_id)).toEqual(["r3"]);
  expect(await variable(a)).toEqual({ value: "3", updated_at: at(3) });
});

test("across nodes a variable keeps the latest run's value, whichever node commits last", async () => {
  const { a, b } = await world();
  await b.sql.begin((tx) => recordRunsPostgres(tx, [run("r2", 5, 5)]));
  // Node A commits later a run that happened earlier: its value does not win.
  await a.sql.begin((tx) => recordRunsPostgres(tx, [run("r1", 4, 4)]));
  expect(await variable(a)).toEqual({ value: "5", updated_at: at(5) });
  await a.sql.begin((tx) => recordRunsPostgres(tx, [run("r3", 6, 6)]));
  expect(await variable(b)).toEqual({ value: "6", updated_at: at(6) });
});

test("an endpoint deleted meanwhile takes no variables, though its runs are recorded", async () => {
  const { a } = await world();
  await a.sql`UPDATE debug_endpoints SET deleted_at = ${T0} WHERE id = 'e1'`;
  expect(await a.sql.begin((tx) => recordRunsPostgres(tx, [run("r1", 1, 1)]))).toEqual([true]);
  expect(await variable(a)).toBeUndefined();
});
