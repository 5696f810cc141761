import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { DrainingEndpoint, Endpoint, EndpointRefusals } from "./endpoints.model.ts";
import type { EndpointsStore, NewEndpoint } from "./endpoints.store.ts";

/** A store over a migrated database, and what the contract needs around it. */
export interface EndpointsStoreHarness {
  store: EndpointsStore;
  /** Empties every table the contract writes. */
  reset(): Promise<void>;
  addOrganization(id: string): Promise<void>;
  /** A stored request, counted on its endpoint as capture's group commit counts it. */
  addRequest(endpointId: string, id: string, createdAt: string): Promise<void>;
  addRefusals(endpointId: string, refusals: EndpointRefusals): Promise<void>;
  /** Ends a drain inside the dialect's transaction, as capture's drain does. */
  finishDrain(endpoint: DrainingEndpoint): Promise<void>;
  /** Whether the endpoint's row is still stored (a deleted one stays until drained). */
  rowExists(id: string): Promise<boolean>;
  close(): Promise<void>;
}

const T0 = "2026-01-01T00:00:00.000Z";
const T1 = "2026-01-02T00:00:00.000Z";
const T2 = "2026-01-03T00:00:00.000Z";

function endpoint(id: string, organizationId: string | null, fields: Partial<Endpoint> = {}) {
  return {
    id,
    organizationId,
    name: `endpoint ${id}`,
    slug: `slug-${id}`,
    status: "active",
    response: null,
    forwardUrl: null,
    verification: null,
    anonymousTokenHash: organizationId === null ? "ab".repeat(32) : null,
    expiresAt: null,
    createdAt: T0,
    updatedAt: T0,
    ...fields,
  } satisfies Endpoint;
}

/** One slug, no limit. */
const plain = (row: Endpoint): NewEndpoint => ({
  endpoint: row,
  slugFor: only(row.slug),
  cap: null,
});
const only = (slug: string) => (attempt: number) => (attempt === 0 ? slug : null);

/** The behaviour every implementation of `EndpointsStore` shares. */
export function describeEndpointsStore(name: string, make: () => Promise<EndpointsStoreHarness>) {
  describe(`endpoints store (${name})`, () => {
    let h: EndpointsStoreHarness;
    let store: EndpointsStore;
    const insert = async (row: Endpoint) => {
      const outcome = await store.insert(plain(row));
      expect(outcome).toEqual({ inserted: row });
      return row;
    };

    beforeAll(async () => {
      h = await make();
      store = h.store;
    });
    afterAll(() => h.close());
    beforeEach(async () => {
      await h.reset();
      await h.addOrganization("org-a");
      await h.addOrganization("org-b");
    });

    test("an inserted endpoint reads back whole, and only by its organization", async () => {
      const row = await insert(
        endpoint("e1", "org-a", {
          status: "paused",
          response: { status: 201, headers: { "x-a": "1" }, body: "hi", delayMs: 5 },
          forwardUrl: "http://127.0.0.1:9/in",
          verification: {
            type: "stripe",
            toleranceSeconds: 300,
            header: null,
            algorithm: null,
            encoding: null,
            prefix: null,
            signed: null,
            timestampHeader: null,
            sealedSecret: "sealed",
          },
        }),
      );
      expect(await store.findInOrganization("e1", "org-a")).toEqual(row);
      expect(await store.findInOrganization("e1", "org-b")).toBeNull();
      expect(await store.findById("e1")).toEqual(row);
      expect(await store.findBySlug("slug-e1")).toEqual(row);
      expect(await store.findById("nope")).toBeNull();
      expect(await store.findBySlug("nope")).toBeNull();
      const anonymous = await insert(endpoint("e2", null, { expiresAt: T2 }));
      expect(await store.findById("e2")).toEqual(anonymous);
      expect(await store.findInOrganization("e2", "org-a")).toBeNull();
    });

    test("a taken slug is refused; the next slug offered is tried", async () => {
      await insert(endpoint("e1", "org-a", { slug: "taken" }));
      const clash = endpoint("e2", "org-b", { slug: "taken" });
      expect(await store.insert(plain(clash))).toEqual({ refused: "slug_taken" });
      const asked: number[] = [];
      const slugs = ["taken", "free-one"];
      const outcome = await store.insert({
        endpoint: clash,
        slugFor: (attempt) => {
          asked.push(attempt);
          return slugs[attempt] ?? null;
        },
        cap: null,
      });
      expect(outcome).toEqual({ inserted: { ...clash, slug: "free-one" } });
      expect(asked).toEqual([0, 1]);
    });

    test("an organization's cap counts its live endpoints only", async () => {
      await insert(endpoint("a1", "org-a"));
      await insert(endpoint("a2", "org-a"));
      await insert(endpoint("b1", "org-b"));
      const third = endpoint("a3", "org-a");
      const capped = (limit: number): NewEndpoint => ({
        ...plain(third),
        cap: { organizationId: "org-a", limit },
      });
      expect(await store.insert(capped(2))).toEqual({ refused: "limit_reached" });
      expect(await store.findById("a3")).toBeNull();
      expect(await store.delete("a1", "org-a", T1)).toBe(true);
      expect(await store.insert(capped(2))).toEqual({ inserted: third });
    });

    test("the anonymous cap counts live anonymous endpoints (not expired, not deleted)", async () => {
      await insert(endpoint("x1", null, { expiresAt: T2 }));
      await insert(endpoint("x2", null, { expiresAt: T0 })); // expired at T1
      await insert(endpoint("o1", "org-a"));
      const next = endpoint("x3", null, { expiresAt: T2 });
      const capped = (limit: number): NewEndpoint => ({
        ...plain(next),
        cap: { anonymousAliveAt: T1, limit },
      });
      expect(await store.insert(capped(1))).toEqual({ refused: "limit_reached" });
      expect(await store.deleteAnonymous("x1", T1)).toBe(true);
      expect(await store.insert(capped(1))).toEqual({ inserted: next });
    });

    test("two inserts of one slug at once: one wins, the other finds it taken", async () => {
      const outcomes = await Promise.all(
        ["r1", "r2", "r3"].map((id) =>
          store.insert(plain(endpoint(id, "org-a", { slug: "contested" }))),
        ),
      );
      expect(outcomes.filter((o) => "inserted" in o)).toHaveLength(1);
      expect(outcomes.filter((o) => "refused" in o)).toEqual([
        { refused: "slug_taken" },
        { refused: "slug_taken" },
      ]);
    });

    test("inserts racing for an organization's last place: exactly one gets it", async () => {
      await insert(endpoint("a0", "org-a"));
      const outcomes = await Promise.all(
        ["a1", "a2", "a3", "a4"].map((id) =>
          store.insert({
            ...plain(endpoint(id, "org-a")),
            cap: { organizationId: "org-a", limit: 2 },
          }),
        ),
      );
      expect(outcomes.filter((o) => "inserted" in o)).toHaveLength(1);
      expect(await store.listForOrganization("org-a")).toHaveLength(2);
    });

    test("an organization's list is newest first (ties by id), without others or deleted ones", async () => {
      await insert(endpoint("a1", "org-a", { createdAt: T0 }));
      await insert(endpoint("a3", "org-a", { createdAt: T1 }));
      await insert(endpoint("a2", "org-a", { createdAt: T1 }));
      await insert(endpoint("a4", "org-a", { createdAt: T2 }));
      await insert(endpoint("b1", "org-b", { createdAt: T2 }));
      await insert(endpoint("x1", null, { createdAt: T2, expiresAt: T2 }));
      await store.delete("a4", "org-a", T2);
      const ids = (await store.listForOrganization("org-a")).map((e) => e.id);
      expect(ids).toEqual(["a3", "a2", "a1"]);
      expect(await store.listForOrganization("org-c")).toEqual([]);
    });

    test("update changes what is given, clears what is null, and stays in its organization", async () => {
      const row = await insert(
        endpoint("e1", "org-a", {
          response: { status: 202, headers: {}, body: "", delayMs: 0 },
          forwardUrl: "http://127.0.0.1:9/a",
        }),
      );
      expect(await store.update("e1", "org-b", { name: "stolen", updatedAt: T1 })).toBeNull();
      expect(await store.findById("e1")).toEqual(row);
      const renamed = await store.update("e1", "org-a", {
        name: "renamed",
        status: "paused",
        updatedAt: T1,
      });
      expect(renamed).toEqual({ ...row, name: "renamed", status: "paused", updatedAt: T1 });
      const cleared = await store.update("e1", "org-a", {
        response: null,
        forwardUrl: null,
        verification: null,
        updatedAt: T2,
      });
      expect(cleared).toEqual({
        ...row,
        name: "renamed",
        status: "paused",
        response: null,
        forwardUrl: null,
        updatedAt: T2,
      });
      const response = { status: 418, headers: { a: "b" }, body: "tea", delayMs: 10 };
      expect((await store.update("e1", "org-a", { response, updatedAt: T2 }))?.response).toEqual(
        response,
      );
      await store.delete("e1", "org-a", T2);
      expect(await store.update("e1", "org-a", { name: "late", updatedAt: T2 })).toBeNull();
    });

    test("delete hides the endpoint at once, frees its slug and marks it for the drain", async () => {
      await insert(endpoint("e1", "org-a"));
      await h.addRequest("e1", "r1", T1);
      expect(await store.delete("e1", "org-b", T1)).toBe(false);
      expect(await store.deleteAnonymous("e1", T1)).toBe(false);
      expect(await store.findById("e1")).not.toBeNull();
      expect(await store.delete("e1", "org-a", T1)).toBe(true);
      expect(await store.delete("e1", "org-a", T1)).toBe(false);
      expect(await store.findInOrganization("e1", "org-a")).toBeNull();
      expect(await store.findById("e1")).toBeNull();
      expect(await store.findBySlug("slug-e1")).toBeNull();
      expect(await store.listDraining(10)).toEqual([
        { endpointId: "e1", deleted: true, clearedThroughId: null },
      ]);
      expect((await store.stats(["e1"])).get("e1")?.requestCount).toBe(0);
      await insert(endpoint("e2", "org-a", { slug: "slug-e1" }));
      expect(await h.rowExists("e1")).toBe(true);
    });

    test("expired anonymous endpoints are listed soonest first, up to the limit", async () => {
      await insert(endpoint("x1", null, { expiresAt: T1 }));
      await insert(endpoint("x2", null, { expiresAt: T0 }));
      await insert(endpoint("x3", null, { expiresAt: T2 }));
      await insert(endpoint("x4", null, { expiresAt: T0 }));
      await insert(endpoint("o1", "org-a", { expiresAt: T0 }));
      expect(await store.listExpiredAnonymous(T1, 10)).toEqual(["x2", "x4", "x1"]);
      expect(await store.listExpiredAnonymous(T1, 1)).toHaveLength(1);
      expect(await store.deleteAnonymous("x2", T1)).toBe(true);
      expect(await store.deleteAnonymous("o1", T1)).toBe(false);
      expect(await store.listExpiredAnonymous(T1, 10)).toEqual(["x4", "x1"]);
      expect(await store.listExpiredAnonymous("2025-12-31T00:00:00.000Z", 10)).toEqual([]);
    });

    test("emptying hides the requests stored until now; the mark never moves back", async () => {
      await insert(endpoint("e1", "org-a"));
      await h.addRequest("e1", "0002", T0);
      await h.addRequest("e1", "0005", T1);
      expect(await store.clearRequests("e1", "0003", T1)).toBe(true);
      expect(await store.listDraining(10)).toEqual([
        { endpointId: "e1", deleted: false, clearedThroughId: "0005" },
      ]);
      expect((await store.stats(["e1"])).get("e1")).toMatchObject({
        requestCount: 0,
        lastRequestAt: null,
      });
      await h.addRequest("e1", "0007", T2);
      expect((await store.stats(["e1"])).get("e1")).toMatchObject({
        requestCount: 1,
        lastRequestAt: T2,
      });
      expect(await store.clearRequests("e1", "0001", T2)).toBe(true);
      expect((await store.listDraining(10))[0]?.clearedThroughId).toBe("0007");
      expect(await store.clearRequests("e1", "0009", T2)).toBe(true);
      expect((await store.listDraining(10))[0]?.clearedThroughId).toBe("0009");
      expect(await store.clearRequests("nope", "0009", T2)).toBe(false);
      await store.delete("e1", "org-a", T2);
      expect(await store.clearRequests("e1", "0010", T2)).toBe(false);
    });

    test("finishing a drain: an emptied endpoint is done unless emptied again; a deleted row goes", async () => {
      await insert(endpoint("e1", "org-a"));
      await insert(endpoint("e2", "org-a"));
      await store.clearRequests("e1", "0003", T1);
      const [first] = await store.listDraining(10);
      await store.clearRequests("e1", "0004", T1); // emptied again meanwhile
      await h.finishDrain(first as DrainingEndpoint);
      expect((await store.listDraining(10)).map((d) => d.endpointId)).toEqual(["e1"]);
      const [again] = await store.listDraining(10);
      await h.finishDrain(again as DrainingEndpoint);
      expect(await store.listDraining(10)).toEqual([]);
      expect(await store.findById("e1")).not.toBeNull();
      await store.delete("e2", "org-a", T1);
      const [deleted] = await store.listDraining(10);
      expect(deleted).toEqual({ endpointId: "e2", deleted: true, clearedThroughId: null });
      await h.finishDrain(deleted as DrainingEndpoint);
      expect(await h.rowExists("e2")).toBe(false);
      expect(await store.listDraining(10)).toEqual([]);
    });

    test("endpoints to drain come in id order, at most the limit", async () => {
      for (const id of ["e3", "e1", "e2"]) {
        await insert(endpoint(id, "org-a"));
        await store.delete(id, "org-a", T1);
      }
      expect((await store.listDraining(10)).map((d) => d.endpointId)).toEqual(["e1", "e2", "e3"]);
      expect((await store.listDraining(2)).map((d) => d.endpointId)).toEqual(["e1", "e2"]);
    });

    test("stats: counts, the newest capture and refusals, for every id asked", async () => {
      await insert(endpoint("e1", "org-a"));
      await insert(endpoint("e2", "org-b"));
      await h.addRequest("e1", "0001", T2);
      await h.addRequest("e1", "0002", T1); // the newest is the highest id, not the latest time
      const refusals = { rateLimited: 3, tooLarge: 1, lastRefusedAt: T2 };
      await h.addRefusals("e1", refusals);
      const stats = await store.stats(["e1", "e2", "nope"]);
      expect([...stats.keys()]).toEqual(["e1", "e2", "nope"]);
      expect(stats.get("e1")).toEqual({ requestCount: 2, lastRequestAt: T1, refusals });
      const none = {
        requestCount: 0,
        lastRequestAt: null,
        refusals: { rateLimited: 0, tooLarge: 0, lastRefusedAt: null },
      };
      expect(stats.get("e2")).toEqual(none);
      expect(stats.get("nope")).toEqual(none);
      expect((await store.stats([])).size).toBe(0);
    });
  });
}
