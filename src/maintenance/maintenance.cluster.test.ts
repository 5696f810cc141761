import { afterEach, expect, test } from "bun:test";
import { createSystemClock } from "../shared/clock.ts";
import { createIds } from "../shared/ids.ts";
import { startTestNode, type TestNode } from "../test-utils/cluster-nodes.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import { maintenanceStorage } from "./maintenance.room.ts";

const databases = usePgDatabases();
const nodes: TestNode[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const node of nodes.splice(0)) await node.stop();
  for (const close of closers.splice(0)) await close();
});

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();

test("a window written on one node is in force on another at once, not at the next refresh", async () => {
  const pg = await openMigratedPgDatabase(databases);
  closers.push(() => pg.close());
  await pg.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
               VALUES ('org-a', 'A', 'team', ${iso(NOW)}, ${iso(NOW)})`;
  const storageOn = async (id: string) => {
    const node = await startTestNode(pg.url, id, 0.2);
    nodes.push(node);
    const storage = maintenanceStorage(
      { clock: createSystemClock(), ids: createIds(), bus: node.bus, postgres: pg },
      {},
    );
    for (const { event, handler } of storage.subscriptions) {
      node.bus.on(event, handler as (payload: unknown) => void);
    }
    // The room's refresh job loads every window at start; it does not run again in this test.
    await storage.refresh?.();
    return storage;
  };
  const a = await storageOn("a");
  const b = await storageOn("b");
  const during = new Date(NOW + 30 * 60_000);
  expect(b.index.inMaintenance("m1", during)).toBe(false);

  const window: MaintenanceWindow = {
    id: "w1",
    organizationId: "org-a",
    title: "upgrade",
    description: null,
    monitorIds: ["m1"],
    startsAt: iso(NOW),
    endsAt: iso(NOW + 3_600_000),
    cron: null,
    durationMinutes: null,
    timezone: null,
    createdAt: iso(NOW),
    updatedAt: iso(NOW),
  };
  expect(await a.store.insertWithinLimit(window, 10)).toBe("inserted");
  await a.windowsChanged("org-a");
  expect(a.index.inMaintenance("m1", during)).toBe(true);
  await pollUntil(() => b.index.inMaintenance("m1", during), {
    timeoutMs: 5_000,
    what: "node b to hold the window node a wrote",
  });

  expect(await a.store.remove("org-a", "w1")).toBe(true);
  await a.windowsChanged("org-a");
  await pollUntil(() => !b.index.inMaintenance("m1", during), {
    timeoutMs: 5_000,
    what: "node b to drop the window node a deleted",
  });
});
