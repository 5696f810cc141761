import { describe, expect, test } from "bun:test";
import type { MonitorChange } from "../alerts/alerts.model.ts";
import {
  alertOf,
  checkInput,
  monitorOf,
  NOW,
  organizations,
} from "../test-utils/monitors-store-fixtures.ts";
import { bucketsOf } from "./monitors.model.ts";
import type { CheckState, MonitorsStore } from "./monitors.store.ts";

/** A store over a fresh database, and what the tests need around it (`$1`-style parameters). */
export interface MonitorsStoreWorld {
  store: MonitorsStore;
  run(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The alerts the store's check transactions told. */
  told: MonitorChange[];
  /** Stores over the same database through clients of their own (other nodes). */
  otherNodes(n: number): Promise<MonitorsStore[]>;
}

/** One suite of behaviour, run against every implementation of MonitorsStore. */
export function describeMonitorsStore(name: string, makeWorld: () => Promise<MonitorsStoreWorld>) {
  describe(`MonitorsStore (${name})`, () => {
    test("reads back a monitor, by organization, id and push token; pages newest first", async () => {
      const { store, ...world } = await makeWorld();
      await organizations(world);
      const push = monitorOf("m1", { type: "push", pushToken: "tok", nextCheckAt: null });
      await store.insertWithinLimit(push, null);
      await store.insertWithinLimit(
        monitorOf("m2", { createdAt: "2026-01-02T00:00:00.000Z" }),
        null,
      );
      await store.insertWithinLimit(monitorOf("m3"), null);
      await store.insertWithinLimit(monitorOf("m4", { organizationId: "org-b" }), null);
      expect(await store.find("org-a", "m1")).toEqual(push);
      expect(await store.find("org-b", "m1")).toBeNull();
      expect((await store.findById("m4"))?.organizationId).toBe("org-b");
      expect((await store.findByPushToken("tok"))?.id).toBe("m1");
      expect(await store.findByPushToken("nope")).toBeNull();
      expect((await store.page("org-a", 2, 0)).map((m) => m.id)).toEqual(["m2", "m3"]);
      expect((await store.page("org-a", 2, 2)).map((m) => m.id)).toEqual(["m1"]);
      expect(await store.count("org-a")).toBe(3);
      expect(await store.parentOf("org-a", "m2")).toBeNull();
      expect(await store.parentOf("org-b", "m2")).toBeUndefined();
      expect((await store.figures()).map((f) => f.id)).toEqual(["m1", "m2", "m3", "m4"]);
    });

    test("updates and removes only the organization's own monitor", async () => {
      const world = await makeWorld();
      await organizations(world);
      const { store } = world;
      await store.insertWithinLimit(monitorOf("m1"), null);
      await store.insertWithinLimit(monitorOf("m2"), null);
      const columns = {
        ...monitorOf("m1"),
        name: "renamed",
        paused: true,
        parentId: "m2",
        nextCheckAt: NOW + 5,
        updatedAt: "2026-01-01T01:00:00.000Z",
      };
      await store.update("org-b", "m1", columns);
      expect((await store.find("org-a", "m1"))?.name).toBe("monitor m1");
      await store.update("org-a", "m1", columns);
      expect(await store.find("org-a", "m1")).toMatchObject({
        name: "renamed",
        paused: true,
        parentId: "m2",
        nextCheckAt: NOW + 5,
      });
      expect(await store.parentOf("org-a", "m1")).toBe("m2");
      expect(await store.remove("org-b", "m1")).toBe(false);
      expect(await store.remove("org-a", "m1")).toBe(true);
      expect(await store.find("org-a", "m1")).toBeNull();
    });

    test("concurrent creates at the plan's limit: only as many as the limit win", async () => {
      const world = await makeWorld();
      await organizations(world);
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => world.store.insertWithinLimit(monitorOf(`m${i}`), 2)),
      );
      expect(outcomes.filter((o) => o === "inserted")).toHaveLength(2);
      expect(await world.store.count("org-a")).toBe(2);
      expect(
        await world.store.insertWithinLimit(monitorOf("b1", { organizationId: "org-b" }), 2),
      ).toBe("inserted");
    });

    test("a check writes its row, buckets, state, change and alerts in one unit", async () => {
      const world = await makeWorld();
      await organizations(world);
      const { store } = world;
      await store.insertWithinLimit(monitorOf("m1"), null);
      const seen: CheckState[] = [];
      const alert = alertOf("m1", "x");
      await store.recordCheck(checkInput("m1", "up", { id: "c1", ms: 120 }, seen));
      await store.recordCheck(
        checkInput("m1", "down", { id: "c2", ms: null, alerts: [alert] }, seen),
      );
      expect(seen.map((s) => [s.state, s.failures, s.lastDownAt])).toEqual([
        ["pending", 0, null],
        ["up", 0, null],
      ]);
      expect(world.told).toEqual([alert]);
      const monitor = await store.find("org-a", "m1");
      expect(monitor).toMatchObject({ state: "down", consecutiveFailures: 1, checksUp: 1 });
      expect(monitor).toMatchObject({ checksDown: 1, nextCheckAt: NOW + 60_000 });
      expect((await store.checksPage("m1", 10, 0)).map((c) => c.id).sort()).toEqual(["c1", "c2"]);
      expect(await store.checksCount("m1")).toBe(2);
      expect((await store.events("m1")).map((e) => [e.from, e.to])).toContainEqual(["up", "down"]);
      const { hour, day } = bucketsOf(NOW);
      expect(await store.sums("m1", "hour", hour)).toEqual({
        checks: 2,
        up: 1,
        degraded: 0,
        maintenance: 0,
        responseSum: 120,
        responseCount: 1,
      });
      expect(await store.hourlyHistogram("m1", hour)).toEqual({
        histogram: [0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        slowest: 120,
      });
      const days = [{ start: day, checks: 2, up: 1, down: 1, degraded: 0, maintenance: 0 }];
      expect(await store.dailyBuckets("m1", day)).toEqual(days);
      expect(await store.dailyRange("m1", day, day)).toEqual(days);
      expect(await store.dailyRange("m1", day + 1, day + 2)).toEqual([]);
      expect(await store.buckets("m1", "hour", hour)).toEqual([
        {
          start: new Date(hour).toISOString(),
          checks: 2,
          up: 1,
          down: 1,
          degraded: 0,
          avg_response_ms: 120,
          max_response_ms: 120,
        },
      ]);
      const third: CheckState[] = [];
      await store.recordCheck(checkInput("m1", "up", { id: "c3" }, third));
      expect(third[0]?.lastDownAt).toBe(new Date(NOW).toISOString());
    });

    test("a check that lost its lease, or of a deleted monitor, writes nothing", async () => {
      const world = await makeWorld();
      await organizations(world);
      const { store } = world;
      await store.insertWithinLimit(monitorOf("m1"), null);
      // The lease outlives the monitor's 10 s timeout by the slack asked for.
      const [claimed] = await store.claimDue(NOW, 30_000, 10);
      expect(claimed?.lease).toBe(NOW + 40_000);
      expect(await store.recordCheck(checkInput("m1", "up", { lease: NOW + 1 }))).toBeNull();
      expect(await store.checksCount("m1")).toBe(0);
      expect(
        await store.recordCheck(checkInput("m1", "up", { lease: NOW + 40_000 })),
      ).not.toBeNull();
      expect(await store.checksCount("m1")).toBe(1);
      // The lease is cleared with the new due time: claimable again when it comes.
      expect((await store.claimDue(NOW + 60_000, 30_000, 10)).map((c) => c.monitor.id)).toEqual([
        "m1",
      ]);
      expect(await store.recordCheck(checkInput("gone", "up"))).toBeNull();
    });

    test("a child's held down alert is released, and told, when its parent recovers", async () => {
      const world = await makeWorld();
      await organizations(world);
      const { store } = world;
      await store.insertWithinLimit(monitorOf("parent"), null);
      await store.insertWithinLimit(monitorOf("child", { parentId: "parent" }), null);
      await store.recordCheck(checkInput("parent", "down", { id: "p1" }));
      const seen: CheckState[] = [];
      await store.recordCheck(
        checkInput(
          "child",
          "down",
          { id: "k1", hold: { changeId: "k1-e", parentId: "parent" } },
          seen,
        ),
      );
      expect(seen[0]?.parentState).toBe("down");
      expect((await store.events("child"))[0]?.held_by_parent_id).toBe("parent");
      const again: CheckState[] = [];
      await store.recordCheck(checkInput("child", "down", { id: "k2" }, again));
      expect(again[0]?.heldAlertId).toBe("k1-e");
      await store.recordCheck(checkInput("parent", "up", { id: "p2", releaseChildren: true }));
      expect(world.told.map((a) => [a.monitor.id, a.subjectId])).toEqual([["child", "k1-e"]]);
      const after: CheckState[] = [];
      await store.recordCheck(checkInput("child", "down", { id: "k3" }, after));
      expect(after[0]?.heldAlertId).toBeNull();
    });

    test("claims due, unpaused, unleased monitors in due order, each until its lease ends", async () => {
      const world = await makeWorld();
      await organizations(world);
      const { store } = world;
      await store.insertWithinLimit(monitorOf("late", { nextCheckAt: NOW - 10 }), null);
      await store.insertWithinLimit(monitorOf("early", { nextCheckAt: NOW - 20 }), null);
      await store.insertWithinLimit(
        monitorOf("paused", { nextCheckAt: NOW - 30, paused: true }),
        null,
      );
      await store.insertWithinLimit(monitorOf("future", { nextCheckAt: NOW + 10 }), null);
      const first = await store.claimDue(NOW, 1_000, 1);
      expect(first.map((c) => c.monitor.id)).toEqual(["early"]);
      expect((await store.claimDue(NOW, 1_000, 10)).map((c) => c.monitor.id)).toEqual(["late"]);
      // Leased for the 10 s timeout and 1 s: only the monitor that became due since is taken.
      expect((await store.claimDue(NOW + 10_999, 1_000, 10)).map((c) => c.monitor.id)).toEqual([
        "future",
      ]);
      expect((await store.claimDue(NOW + 11_000, 1_000, 10)).map((c) => c.monitor.id)).toEqual([
        "early",
        "late",
      ]);
    });

    test("three nodes claiming at once never take the same due check", async () => {
      const world = await makeWorld();
      await organizations(world);
      for (let i = 0; i < 60; i++) {
        const id = `m${String(i).padStart(2, "0")}`;
        await world.store.insertWithinLimit(monitorOf(id, { nextCheckAt: NOW - i }), null);
      }
      const nodes = await world.otherNodes(3);
      const claimed: string[] = [];
      await Promise.all(
        nodes.map(async (node) => {
          for (let round = 0; round < 10; round++) {
            for (const c of await node.claimDue(NOW, 60_000, 4)) claimed.push(c.monitor.id);
          }
        }),
      );
      expect(claimed).toHaveLength(60);
      expect(new Set(claimed).size).toBe(60);
    });

    test("resumes overdue slots on their phase; retention and tenants", async () => {
      const world = await makeWorld();
      await organizations(world);
      const { store } = world;
      await store.insertWithinLimit(monitorOf("m1", { nextCheckAt: NOW - 3_600_000 }), null);
      await store.insertWithinLimit(
        monitorOf("p1", { type: "push", pushToken: "t", nextCheckAt: NOW - 3_600_000 }),
        null,
      );
      await store.insertWithinLimit(monitorOf("m2", { nextCheckAt: NOW - 1_000 }), null);
      expect(await store.resumeOverdue(NOW, 5_000)).toBe(2);
      // Phase 1 s in a 60 s interval: the next slot at or after NOW.
      expect((await store.findById("m1"))?.nextCheckAt).toBe(NOW + 1_000);
      expect((await store.findById("p1"))?.nextCheckAt).toBe(NOW + 60_000 + 10_000);
      expect((await store.findById("m2"))?.nextCheckAt).toBe(NOW - 1_000);
      expect(await store.tenants()).toEqual([{ id: "org-a", plan: "team" }]);
      await store.recordCheck(checkInput("m1", "up", { id: "c1" }));
      await store.recordCheck(checkInput("m1", "up", { id: "c2" }));
      expect(await store.deleteChecksBefore("org-b", "2027-01-01", 10)).toBe(0);
      expect(await store.deleteChecksBefore("org-a", "2027-01-01", 1)).toBe(1);
      expect(await store.checksCount("m1")).toBe(1);
      const { hour } = bucketsOf(NOW);
      expect(await store.deleteBucketsBefore("hour", hour)).toBe(0);
      expect(await store.deleteBucketsBefore("hour", hour + 1)).toBe(1);
      expect(await store.buckets("m1", "hour", 0)).toEqual([]);
    });
  });
}
