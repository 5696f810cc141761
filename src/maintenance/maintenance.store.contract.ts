import { describe, expect, test } from "bun:test";
import type { MaintenanceWindow } from "./maintenance.model.ts";
import type { MaintenanceStore } from "./maintenance.store.ts";

/** A store over a fresh database, and a way to write rows around it (`$1`-style parameters). */
export interface MaintenanceStoreWorld {
  store: MaintenanceStore;
  run(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The windows the store's inserts told, in their transaction. */
  told: string[];
}

const T0 = "2026-01-01T00:00:00.000Z";

async function organizations(world: MaintenanceStoreWorld) {
  for (const id of ["org-a", "org-b"]) {
    await world.run(
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ($1, $1, 'team', $2, $2)",
      [id, T0],
    );
  }
}

function windowOf(id: string, fields: Partial<MaintenanceWindow> = {}): MaintenanceWindow {
  return {
    id,
    organizationId: "org-a",
    title: `window ${id}`,
    description: null,
    monitorIds: ["m1", "m2"],
    startsAt: "2026-01-02T00:00:00.000Z",
    endsAt: "2026-01-02T01:00:00.000Z",
    cron: null,
    durationMinutes: null,
    timezone: null,
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  };
}

/** One suite of behaviour, run against every implementation of MaintenanceStore. */
export function describeMaintenanceStore(
  name: string,
  makeWorld: () => Promise<MaintenanceStoreWorld>,
) {
  describe(`MaintenanceStore (${name})`, () => {
    test("reads back a window as written, within its organization only", async () => {
      const world = await makeWorld();
      await organizations(world);
      const recurring = windowOf("w1", {
        description: "nightly",
        startsAt: null,
        endsAt: null,
        cron: "30 22 * * *",
        durationMinutes: 30,
        timezone: "Europe/Berlin",
      });
      expect(await world.store.insertWithinLimit(recurring, 10)).toBe("inserted");
      expect(world.told).toEqual(["w1"]);
      expect(await world.store.find("org-a", "w1")).toEqual(recurring);
      expect(await world.store.find("org-b", "w1")).toBeNull();
      expect(await world.store.list("org-b")).toEqual([]);
      expect(await world.store.count("org-a")).toBe(1);
      expect(await world.store.count("org-b")).toBe(0);
    });

    test("lists newest first, the later of one instant first; all() spans organizations", async () => {
      const world = await makeWorld();
      await organizations(world);
      await world.store.insertWithinLimit(windowOf("w1"), 10);
      await world.store.insertWithinLimit(windowOf("w2"), 10);
      await world.store.insertWithinLimit(
        windowOf("w3", { createdAt: "2026-01-03T00:00:00.000Z" }),
        10,
      );
      await world.store.insertWithinLimit(windowOf("w4", { organizationId: "org-b" }), 10);
      expect((await world.store.list("org-a")).map((w) => w.id)).toEqual(["w3", "w2", "w1"]);
      expect((await world.store.all()).map((w) => w.id).sort()).toEqual(["w1", "w2", "w3", "w4"]);
    });

    test("refuses an insert past the limit, and tells nothing of it", async () => {
      const world = await makeWorld();
      await organizations(world);
      expect(await world.store.insertWithinLimit(windowOf("w1"), 1)).toBe("inserted");
      expect(await world.store.insertWithinLimit(windowOf("w2"), 1)).toBe("limit_reached");
      // Another organization's windows do not count against it.
      expect(
        await world.store.insertWithinLimit(windowOf("w3", { organizationId: "org-b" }), 1),
      ).toBe("inserted");
      expect(world.told).toEqual(["w1", "w3"]);
    });

    test("concurrent inserts at the limit: only as many as the limit win", async () => {
      const world = await makeWorld();
      await organizations(world);
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => world.store.insertWithinLimit(windowOf(`w${i}`), 2)),
      );
      expect(outcomes.filter((o) => o === "inserted")).toHaveLength(2);
      expect(await world.store.count("org-a")).toBe(2);
    });

    test("updates and removes only the organization's own window", async () => {
      const world = await makeWorld();
      await organizations(world);
      await world.store.insertWithinLimit(windowOf("w1"), 10);
      const changed = windowOf("w1", {
        title: "moved",
        monitorIds: ["m3"],
        updatedAt: "2026-01-01T01:00:00.000Z",
      });
      expect(await world.store.update({ ...changed, organizationId: "org-b" })).toBe(false);
      expect((await world.store.find("org-a", "w1"))?.title).toBe("window w1");
      expect(await world.store.update(changed)).toBe(true);
      expect(await world.store.find("org-a", "w1")).toEqual(changed);
      expect(await world.store.update(windowOf("nope"))).toBe(false);
      expect(await world.store.remove("org-b", "w1")).toBe(false);
      expect(await world.store.remove("org-a", "w1")).toBe(true);
      expect(await world.store.remove("org-a", "w1")).toBe(false);
      expect(await world.store.find("org-a", "w1")).toBeNull();
    });
  });
}
