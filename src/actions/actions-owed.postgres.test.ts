import { afterAll, expect, test } from "bun:test";
import type { CaptureTarget } from "../capture/capture.model.ts";
import { createCapturePostgresWriter } from "../capture/capture-writer.postgres.ts";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import {
  claimOwedRunsPostgres,
  oweActionRunsPostgres,
  settleOwedRunPostgres,
} from "./actions-owed.postgres.ts";

const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pg of pools.splice(0)) await pg.close();
});
const databases = usePgDatabases();
const T0 = "2026-01-01T00:00:00.000Z";
const LATER = "2027-01-01T00:00:00.000Z";

/** Two nodes' pools over one migrated database; e1 has a chain, e2 has none. */
async function world() {
  const made = await databases.create();
  const a = await openPostgres(made.url, { poolSize: 3 });
  const b = await openPostgres(made.url, { poolSize: 3 });
  pools.push(a, b);
  await runPgMigrations(a.sql, PG_MIGRATIONS);
  await a.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES ('o1', 'org', 'team', ${T0}, ${T0})`;
  for (const id of ["e1", "e2"]) {
    await a.sql`INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at)
      VALUES (${id}, 'o1', ${id}, ${`slug-${id}`}, 'active', ${T0}, ${T0})`;
  }
  await a.sql`INSERT INTO endpoint_actions (id, organization_id, endpoint_id, type, name, config,
      position, enabled, created_at, updated_at)
    VALUES ('a1', 'o1', 'e1', 'respond', 'answer', '{}', 0, 1, ${T0}, ${T0})`;
  const writer = createCapturePostgresWriter({
    pg: a,
    onCommitted: () => {},
    oweActionRuns: oweActionRunsPostgres,
  });
  return { a, b, writer };
}

const target = (id: string): CaptureTarget => ({
  id,
  organizationId: "o1",
  slug: `slug-${id}`,
  forwardUrl: null,
});

test("a capture commits with the run it is owed only when its endpoint has a chain, and never for a preflight", async () => {
  const w = await world();
  await Promise.all([
    w.writer.write(
      makeCapturedRequest({ id: "r1", endpointId: "e1", createdAt: T0 }),
      target("e1"),
    ),
    w.writer.write(
      makeCapturedRequest({ id: "r2", endpointId: "e2", createdAt: T0 }),
      target("e2"),
    ),
    w.writer.write(
      makeCapturedRequest({
        id: "r3",
        endpointId: "e1",
        method: "OPTIONS",
        headers: { origin: "https://x.test", "access-control-request-method": "POST" },
        createdAt: T0,
      }),
      target("e1"),
    ),
  ]);
  const rows = await w.b.sql`SELECT request_id, endpoint_id, organization_id, created_at
    FROM action_runs_due ORDER BY request_id`;
  expect([...rows]).toEqual([
    { request_id: "r1", endpoint_id: "e1", organization_id: "o1", created_at: T0 },
  ]);
  await w.writer.close();
});

test("two nodes recovering at once never claim one owed run, and a settled run is gone", async () => {
  const w = await world();
  const ids = ["r1", "r2", "r3", "r4"];
  await Promise.all(
    ids.map((id) =>
      w.writer.write(makeCapturedRequest({ id, endpointId: "e1", createdAt: T0 }), target("e1")),
    ),
  );
  let releaseA: () => void = () => {};
  const aHolds = new Promise<void>((resolve) => {
    releaseA = resolve;
  });
  let claimedByA: string[] = [];
  const nodeA = w.a.sql.begin(async (tx) => {
    claimedByA = (await claimOwedRunsPostgres(tx, LATER, 2)).map((r) => r.requestId);
    await aHolds;
    for (const id of claimedByA) await settleOwedRunPostgres(tx, id);
  });
  // Node B claims while A still holds its rows: it gets the others, oldest first.
  await pollUntil(() => claimedByA.length > 0, { what: "node A's claim" });
  const claimedByB = await w.b.sql.begin(async (tx) =>
    (await claimOwedRunsPostgres(tx, LATER, 10)).map((r) => r.requestId),
  );
  releaseA();
  await nodeA;
  expect(claimedByA).toEqual(["r1", "r2"]);
  expect(claimedByB).toEqual(["r3", "r4"]);
  const left = await w.b.sql`SELECT request_id FROM action_runs_due ORDER BY request_id`;
  expect(left.map((r: { request_id: string }) => r.request_id)).toEqual(["r3", "r4"]);
  const claimed = await claimOwedRunsPostgres(w.b.sql, LATER, 10);
  expect(claimed[0]).toEqual({
    requestId: "r3",
    endpointId: "e1",
    organizationId: "o1",
    plan: "team",
  });
  await w.writer.close();
});
