import { afterAll, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { closeDeps, createDeps } from "../deps.ts";
import { loadConfig } from "../shared/config.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { createCapturePostgresStore } from "./capture.postgres.ts";
import { type CaptureRoomPorts, createCaptureRoom } from "./capture.room.ts";
import { RETENTION_JOB } from "./retention.schedule.ts";

// The pool closes before its database is dropped (hooks run in the order they were added).
const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pg of pools.splice(0)) await pg.close();
});
const databases = usePgDatabases();

const T0 = "2026-01-01T00:00:00.000Z";
const unused = () => {
  throw new Error("not used by this test");
};

/** Ports of the other rooms, as far as reading and sweeping stored requests needs them. */
const ports = {
  guard: () => new Elysia({ name: "no-guard" }),
  requireEndpoint: unused,
  requireAnonymousEndpoint: unused,
  clearRequests: unused,
  listExpiredAnonymous: () => [],
  deleteAnonymous: () => false,
  listDraining: () => [],
  finishDrain: unused,
  forgetForwards: unused,
  resolveClientIp: unused,
  enqueueForwards: unused,
  oweActionRuns: unused,
  wakeDeliveries: () => {},
} as unknown as CaptureRoomPorts;

test("given PostgreSQL, the capture room lends and sweeps the requests stored there", async () => {
  const database = await databases.create();
  const pg = await openPostgres(database.url, { poolSize: 4 });
  pools.push(pg);
  await runPgMigrations(pg.sql, PG_MIGRATIONS);
  await pg.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES ('org', 'org', 'free', ${T0}, ${T0})`;
  await pg.sql`INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at)
    VALUES ('ep', 'org', 'ep', 'hook', 'active', ${T0}, ${T0})`;
  const store = createCapturePostgresStore(pg);
  const old = makeCapturedRequest({ id: "r1", endpointId: "ep", createdAt: T0 });
  const recent = makeCapturedRequest({
    id: "r2",
    endpointId: "ep",
    createdAt: "2026-03-01T00:00:00.000Z",
  });
  await store.insert(old);
  await store.insert(recent);

  // SQLite holds nothing: whatever the room lends comes from PostgreSQL.
  const dir = makeTempDir("weir-capture-pg-");
  const config = loadConfig({ env: {}, flags: { data_dir: dir.path } }).config;
  const clock = createFakeClock(Date.parse("2026-03-02T00:00:00.000Z"));
  const scheduler = createManualScheduler();
  const deps = await createDeps(config, {
    clock,
    scheduler,
    logger: createLogger({ level: "error", write: () => {} }),
  });
  try {
    const room = createCaptureRoom({ ...deps, postgres: pg }, ports);
    expect(await room.ports.findRequest("ep", "r1")).toEqual(old);
    expect((await room.ports.listRequestsAfter("ep", null, 10)).map((r) => r.id)).toEqual([
      "r1",
      "r2",
    ]);
    // The free plan keeps 7 days: the sweep deletes the old request from PostgreSQL.
    const sweep = room.jobs.find((job) => job.name === RETENTION_JOB);
    await sweep?.run();
    expect(await room.ports.findRequest("ep", "r1")).toBeNull();
    expect(await store.count("ep")).toBe(1);
    await room.stop();
  } finally {
    closeDeps(deps);
    dir.remove();
  }
});
