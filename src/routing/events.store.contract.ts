import { describe, expect, test } from "bun:test";
import type { StoredEvent } from "./events.repo.ts";
import type { EventsStore } from "./events.store.ts";

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** A store over a fresh migrated database; `run` writes rows around it (`$1`-style parameters). */
export interface EventsStoreWorld {
  store: EventsStore;
  run(sql: string, params?: unknown[]): Promise<void>;
}

function eventOf(id: string, fields: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id,
    organizationId: "org-a",
    sourceId: "src-a",
    method: "POST",
    path: "/",
    queryString: "",
    headers: {},
    rawHeaders: [["Content-Type", "application/json"]],
    body: new TextEncoder().encode(`{"id":"${id}"}`),
    status: "pending",
    createdAt: iso(T0),
    ...fields,
  };
}

/** Two organizations with a source each, and three bridges on org-a's created in order b1, b2, b3. */
async function seed(world: EventsStoreWorld) {
  for (const org of ["org-a", "org-b"]) {
    await world.run(
      "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ($1, $1, 'team', $2, $2)",
      [org, iso(T0)],
    );
    await world.run(
      "INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at) VALUES ($1, $2, $1, 'webhook', $1, $3, $3)",
      [`src-${org.slice(-1)}`, org, iso(T0)],
    );
  }
  for (const [i, id] of ["b3", "b1", "b2"].entries()) {
    await world.run(
      "INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at) VALUES ($1, 'org-a', 'src-a', $1, 'active', $2, $2)",
      [id, iso(T0 + Number(id.slice(1)) * 1000 + i)],
    );
  }
}

/** One suite of behaviour, run against every implementation of EventsStore. */
export function describeEventsStore(name: string, makeWorld: () => Promise<EventsStoreWorld>) {
  describe(`EventsStore (${name})`, () => {
    test("an event comes back byte-exact with its state, bridges in their order, within its organization", async () => {
      const world = await makeWorld();
      await seed(world);
      const body = new Uint8Array([0, 255, 10, 13, 128]);
      await world.store.insert(
        null,
        eventOf("e1", { body, statusReason: "filter budget exceeded", status: "failed" }),
        ["b1", "b2"],
        0,
      );
      const found = await world.store.find("org-a", "e1");
      expect(found?.body).toEqual(body);
      expect(found).toMatchObject({
        id: "e1",
        status: "failed",
        rawHeaders: [["Content-Type", "application/json"]],
        headers: { "content-type": "application/json" },
      });
      expect(await world.store.find("org-b", "e1")).toBeNull();
      expect((await world.store.findById("e1"))?.id).toBe("e1");
      expect(await world.store.statusReason("e1")).toBe("filter budget exceeded");
      expect(await world.store.bridgesOf(["e1", "nope"])).toEqual(new Map([["e1", ["b1", "b2"]]]));
    });

    test("pages are newest first with a cut body and its size; filters narrow them and the total", async () => {
      const world = await makeWorld();
      await seed(world);
      const big = new Uint8Array(70_000).fill(65);
      await world.store.insert(null, eventOf("e1", { createdAt: iso(T0 + 1) }), ["b1"], 1);
      await world.store.insert(
        null,
        eventOf("e2", { createdAt: iso(T0 + 2), body: big }),
        ["b2"],
        1,
      );
      await world.store.insert(
        null,
        eventOf("e3", { createdAt: iso(T0 + 3), status: "failed" }),
        [],
        0,
      );
      await world.store.insert(
        null,
        eventOf("x1", { organizationId: "org-b", sourceId: "src-b" }),
        [],
        0,
      );
      const all = await world.store.page("org-a", {}, 2, 0);
      expect(all.total).toBe(3);
      expect(all.events.map((e) => e.id)).toEqual(["e3", "e2"]);
      const cut = all.events[1];
      expect(cut?.bodySize).toBe(70_000);
      expect(cut?.body.length).toBeLessThan(70_000);
      expect(
        (await world.store.page("org-a", { status: "failed" }, 10, 0)).events.map((e) => e.id),
      ).toEqual(["e3"]);
      expect(
        (await world.store.page("org-a", { bridgeId: "b1" }, 10, 0)).events.map((e) => e.id),
      ).toEqual(["e1"]);
      const window = await world.store.page(
        "org-a",
        { since: iso(T0 + 2), until: iso(T0 + 2) },
        10,
        0,
      );
      expect([window.total, window.events.map((e) => e.id)]).toEqual([1, ["e2"]]);
      expect(await world.store.storedBytes("org-a")).toBe(70_000 + 2 * `{"id":"e1"}`.length);
      expect((await world.store.tenantsWithEvents()).map((t) => t.id).sort()).toEqual([
        "org-a",
        "org-b",
      ]);
    });

    test("the state follows the deliveries: reopened, delivered by the last, failed by any", async () => {
      const world = await makeWorld();
      await seed(world);
      await world.store.insert(null, eventOf("e1"), ["b1"], 2);
      await world.store.deliveryEnded(null, "e1", "delivered");
      expect((await world.store.find("org-a", "e1"))?.status).toBe("pending");
      await world.store.deliveryEnded(null, "e1", "delivered");
      expect((await world.store.find("org-a", "e1"))?.status).toBe("delivered");
      await world.store.reopen(null, "e1", 1);
      expect((await world.store.find("org-a", "e1"))?.status).toBe("pending");
      await world.store.deliveryEnded(null, "e1", "failed");
      expect((await world.store.find("org-a", "e1"))?.status).toBe("failed");
      await world.store.setStatus(null, "e1", "paused");
      expect((await world.store.find("org-a", "e1"))?.status).toBe("paused");
      await world.store.replaceBridges(null, "e1", ["b2", "b3"]);
      expect((await world.store.bridgesOf(["e1"])).get("e1")).toEqual(["b2", "b3"]);
    });

    test("a bulk retry's batch reopens each event by its own count, and only those", async () => {
      const world = await makeWorld();
      await seed(world);
      for (const id of ["e1", "e2", "e3"]) {
        await world.store.insert(null, eventOf(id), ["b1"], 1);
        await world.store.deliveryEnded(null, id, "failed");
      }
      await world.store.reopenMany(
        null,
        new Map([
          ["e1", 1],
          ["e2", 2],
        ]),
      );
      await world.store.reopenMany(null, new Map());
      const statusOf = async (id: string) => (await world.store.find("org-a", id))?.status;
      expect([await statusOf("e1"), await statusOf("e2"), await statusOf("e3")]).toEqual([
        "pending",
        "pending",
        "failed",
      ]);
      // e2 waits for both of its requeued deliveries: one ending delivered leaves it pending.
      await world.store.deliveryEnded(null, "e2", "delivered");
      expect(await statusOf("e2")).toBe("pending");
      await world.store.deliveryEnded(null, "e2", "delivered");
      expect(await statusOf("e2")).toBe("delivered");
      await world.store.deliveryEnded(null, "e1", "delivered");
      expect(await statusOf("e1")).toBe("delivered");
    });

    test("a bulk retry walks failed and pending events oldest first, after its cursor", async () => {
      const world = await makeWorld();
      await seed(world);
      for (const [i, status] of (["failed", "delivered", "pending", "failed"] as const).entries()) {
        await world.store.insert(null, eventOf(`e${i}`, { createdAt: iso(T0 + i), status }), [], 0);
      }
      const first = await world.store.retryBatch("org-a", {}, null, 2);
      expect(first.map((c) => c.id)).toEqual(["e0", "e2"]);
      const next = await world.store.retryBatch("org-a", {}, first[1] ?? null, 2);
      expect(next.map((c) => c.id)).toEqual(["e3"]);
      expect(await world.store.retryBatch("org-b", {}, null, 2)).toEqual([]);
    });

    test("retention deletes an organization's older events in batches, with their state and bridges", async () => {
      const world = await makeWorld();
      await seed(world);
      for (let i = 0; i < 5; i++) {
        await world.store.insert(null, eventOf(`e${i}`, { createdAt: iso(T0 + i) }), ["b1"], 0);
      }
      await world.store.insert(
        null,
        eventOf("x1", { organizationId: "org-b", sourceId: "src-b" }),
        [],
        0,
      );
      const gone = await world.store.deleteBefore(null, "org-a", iso(T0 + 4), 3);
      expect(gone).toHaveLength(3);
      expect((await world.store.deleteBefore(null, "org-a", iso(T0 + 4), 3)).length).toBe(1);
      expect((await world.store.page("org-a", {}, 10, 0)).events.map((e) => e.id)).toEqual(["e4"]);
      expect((await world.store.bridgesOf(gone)).size).toBe(0);
      expect((await world.store.find("org-b", "x1"))?.id).toBe("x1");
    });
  });
}
