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
  OWED_LEASE_MS,
  oweActionRunsPostgres,
  renewOwedRunsPostgres,
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
    // Leased for no time: recovery may take them at once, as after their node died.
    oweActionRuns: (tx, kept) => oweActionRunsPostgres(tx, kept, 0),
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
  // B leases its runs for no time, so they are claimable again below.
  const claimedByB = await w.b.sql.begin(async (tx) =>
    (await claimOwedRunsPostgres(tx, LATER, 10, 0)).map((r) => r.requestId),
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

test("a run leased to a live node is not claimed; its node renews the lease, and a lapsed one is claimed", async () => {
  const w = await world();
  await w.writer.write(
    makeCapturedRequest({ id: "r1", endpointId: "e1", createdAt: T0 }),
    target("e1"),
  );
  // The node that captures r2 leases its run to itself, as every node does.
  const leasing = createCapturePostgresWriter({
    pg: w.a,
    onCommitted: () => {},
    oweActionRuns: oweActionRunsPostgres,
  });
  await leasing.write(
    makeCapturedRequest({ id: "r2", endpointId: "e1", createdAt: T0 }),
    target("e1"),
  );
  await leasing.close();
  const leaseOf = async (id: string) =>
    Number(
      (await w.b.sql`SELECT lease_until FROM action_runs_due WHERE request_id = ${id}`)[0]
        ?.lease_until,
    );
  const [{ now }] = await w.b
    .sql`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now`;
  expect(await leaseOf("r2")).toBeGreaterThan(Number(now) + OWED_LEASE_MS - 5_000);
  // r2's node holds it; r1's lease lapsed.
  expect((await claimOwedRunsPostgres(w.b.sql, LATER, 10)).map((r) => r.requestId)).toEqual(["r1"]);
  // r1 is now leased to the claimer: a second claim takes nothing.
  expect(await claimOwedRunsPostgres(w.b.sql, LATER, 10)).toEqual([]);
  await w.b.sql`UPDATE action_runs_due SET lease_until = 0 WHERE request_id = 'r2'`;
  await renewOwedRunsPostgres(w.a.sql, ["r2"], 60_000);
  expect(await leaseOf("r2")).toBeGreaterThan(Number(now) + 50_000);
  expect(await claimOwedRunsPostgres(w.b.sql, LATER, 10)).toEqual([]);
  await w.b.sql`UPDATE action_runs_due SET lease_until = 0`;
  expect((await claimOwedRunsPostgres(w.b.sql, LATER, 10)).map((r) => r.requestId)).toEqual([
    "r1",
    "r2",
  ]);
  await w.writer.close();
});
