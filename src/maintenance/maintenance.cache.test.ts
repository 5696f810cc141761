import { afterAll, expect, test } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createWindowCache } from "./maintenance.cache.ts";
import { createMaintenanceIndex } from "./maintenance.index.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import { createMaintenancePostgresStore } from "./maintenance.postgres.ts";

const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});
const databases = usePgDatabases();

const AT = new Date("2026-01-02T00:30:00.000Z");
const windowOf = (id: string, monitorIds: string[]): MaintenanceWindow => ({
  id,
  organizationId: "org",
  title: id,
  description: null,
  monitorIds,
  startsAt: "2026-01-02T00:00:00.000Z",
  endsAt: "2026-01-02T01:00:00.000Z",
  cron: null,
  durationMinutes: null,
  timezone: null,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

test("one node's window edits reach another node's index at its next refresh", async () => {
  const made = await databases.create();
  const [a, b] = [await openPostgres(made.url), await openPostgres(made.url)];
  pools.push(a, b);
  await runPgMigrations(a.sql, PG_MIGRATIONS);
  await a.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
              VALUES ('org', 'org', 'team', 'x', 'x')`;
  const writer = createMaintenancePostgresStore(a);
  const cache = createWindowCache(createMaintenancePostgresStore(b));
  const index = createMaintenanceIndex(cache.source);
  const refresh = async () => {
    for (const org of await cache.load()) index.invalidate(org);
  };
  await refresh();
  expect(index.inMaintenance("m1", AT)).toBe(false);

  await writer.insertWithinLimit(windowOf("w1", ["m1"]), 100);
  // Until the refresh, the node answers from what it holds: no SQL on the check path.
  expect(index.inMaintenance("m1", AT)).toBe(false);
  await refresh();
  expect(index.inMaintenance("m1", AT)).toBe(true);

  await writer.update({ ...windowOf("w1", ["m2"]), updatedAt: "2026-01-01T01:00:00.000Z" });
  await refresh();
  expect(index.inMaintenance("m1", AT)).toBe(false);
  expect(index.inMaintenance("m2", AT)).toBe(true);

  await writer.remove("org", "w1");
  await refresh();
  expect(index.inMaintenance("m2", AT)).toBe(false);
  expect(index.maintenanceFor("org", ["m2"], AT, 7).active).toEqual([]);
});
