import { describe, expect, test } from "bun:test";
import type { IncidentsStore } from "./incidents.store.ts";
import type { Incident, IncidentStatus, IncidentUpdate } from "./status-pages.model.ts";

/** A store over an empty, migrated database, and a way to add a status page (of its own organization). */
export type MakeIncidentsStore = () => Promise<{
  store: IncidentsStore;
  addPage(pageId: string): Promise<void>;
}>;

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

const incident = (id: string, pageId: string, minute: number, extra: Partial<Incident> = {}) =>
  ({
    id,
    statusPageId: pageId,
    title: `Incident ${id}`,
    impact: "minor",
    status: "investigating",
    monitorIds: ["m-1", "m-2"],
    updates: [],
    createdAt: at(minute),
    updatedAt: at(minute),
    resolvedAt: null,
    ...extra,
  }) satisfies Incident;

const update = (id: string, minute: number, status: IncidentStatus): IncidentUpdate => ({
  id,
  status,
  message: `Update ${id}`,
  createdAt: at(minute),
});

/** One suite of behaviour every IncidentsStore implementation must show. */
export function describeIncidentsStore(name: string, makeStore: MakeIncidentsStore) {
  const withPages = async () => {
    const made = await makeStore();
    await made.addPage("p-a");
    await made.addPage("p-b");
    return made.store;
  };

  /** Opens an incident with its first update, as the service does. */
  const open = async (store: IncidentsStore, row: Incident, first: IncidentUpdate) => {
    await store.insert(row);
    await store.addUpdate(row, first);
  };

  describe(`IncidentsStore on ${name}`, () => {
    test("an incident comes back with its monitors and updates, oldest update first", async () => {
      const store = await withPages();
      const row = incident("i-1", "p-a", 1);
      await open(store, row, update("u-1", 1, "investigating"));
      const resolved = { ...row, status: "resolved" as const, updatedAt: at(5), resolvedAt: at(5) };
      await store.addUpdate(resolved, update("u-3", 5, "resolved"));
      const identified = update("u-2", 3, "identified");
      await store.addUpdate({ ...resolved }, identified);

      expect(await store.find("p-a", "i-1")).toEqual({
        ...resolved,
        updates: [update("u-1", 1, "investigating"), identified, update("u-3", 5, "resolved")],
      });
      expect(await store.find("p-a", "i-missing")).toBeNull();
    });

    test("updates of one instant keep the order they were added in", async () => {
      const store = await withPages();
      const row = incident("i-1", "p-a", 1);
      await open(store, row, update("u-01", 2, "investigating"));
      await store.addUpdate(row, update("u-02", 2, "identified"));
      await store.addUpdate(row, update("u-03", 2, "monitoring"));
      const found = await store.find("p-a", "i-1");
      expect(found?.updates.map((u) => u.id)).toEqual(["u-01", "u-02", "u-03"]);
    });

    test("list is newest first, ties by id descending, and holds only the page's incidents", async () => {
      const store = await withPages();
      await open(store, incident("i-1", "p-a", 1), update("u-1", 1, "investigating"));
      await open(store, incident("i-3", "p-a", 2), update("u-3", 2, "investigating"));
      await open(store, incident("i-2", "p-a", 2), update("u-2", 2, "investigating"));
      await open(store, incident("i-9", "p-b", 3), update("u-9", 3, "investigating"));

      const listed = await store.list("p-a");
      expect(listed.map((i) => i.id)).toEqual(["i-3", "i-2", "i-1"]);
      expect(listed.map((i) => i.updates.map((u) => u.id))).toEqual([["u-3"], ["u-2"], ["u-1"]]);
      expect((await store.list("p-b")).map((i) => i.id)).toEqual(["i-9"]);
      expect(await store.list("p-none")).toEqual([]);
    });

    test("recent keeps open incidents of any age and those resolved or opened since", async () => {
      const store = await withPages();
      await store.insert(incident("i-old-open", "p-a", 1));
      await store.insert(
        incident("i-old-resolved", "p-a", 2, { status: "resolved", resolvedAt: at(3) }),
      );
      await store.insert(
        incident("i-resolved-late", "p-a", 4, { status: "resolved", resolvedAt: at(20) }),
      );
      await store.insert(incident("i-new", "p-a", 15, { status: "resolved", resolvedAt: at(15) }));
      await store.insert(incident("i-other-page", "p-b", 16));

      const recent = await store.recent("p-a", at(10));
      expect(recent.map((i) => i.id)).toEqual(["i-new", "i-resolved-late", "i-old-open"]);
    });

    test("another page's id reaches nothing: find is null, remove is false and keeps the row", async () => {
      const store = await withPages();
      await open(store, incident("i-1", "p-a", 1), update("u-1", 1, "investigating"));

      expect(await store.find("p-b", "i-1")).toBeNull();
      expect(await store.remove("p-b", "i-1")).toBe(false);
      const other = {
        ...incident("i-1", "p-b", 1),
        status: "resolved" as const,
        resolvedAt: at(2),
      };
      await store.insert(incident("i-2", "p-b", 1));
      await store.addUpdate({ ...other, id: "i-2" }, update("u-2", 2, "resolved"));
      expect((await store.find("p-a", "i-1"))?.status).toBe("investigating");

      expect(await store.remove("p-a", "i-1")).toBe(true);
      expect(await store.find("p-a", "i-1")).toBeNull();
      expect(await store.remove("p-a", "i-1")).toBe(false);
      expect((await store.find("p-b", "i-2"))?.updates.map((u) => u.id)).toEqual(["u-2"]);
    });
  });
}
