import { describe, expect, test } from "bun:test";
import type { PageComponent, PageMonitor, StatusPage } from "./status-pages.model.ts";
import type { StatusPagesStore } from "./status-pages.store.ts";

/**
 * A store over an empty, migrated database, with organizations "o-1" and "o-2" and monitors
 * "m-1" to "m-3" of "o-1" already there (SEED_SQL).
 */
export type MakeStatusPagesStore = () => Promise<StatusPagesStore>;

const CREATED = "2026-01-01T00:00:00.000Z";
const monitorRow = (id: string) =>
  `('${id}', 'o-1', 'Monitor ${id}', 'http', '{}', 60, 10, 0, '${CREATED}', '${CREATED}')`;

/** The rows every test starts from; plain SQL both databases run as it is. */
export const SEED_SQL = `
  INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES
    ('o-1', 'One', 'team', '${CREATED}', '${CREATED}'),
    ('o-2', 'Two', 'team', '${CREATED}', '${CREATED}');
  INSERT INTO monitors (id, organization_id, name, type, settings, interval_seconds,
    timeout_seconds, phase_ms, created_at, updated_at) VALUES
    ${["m-1", "m-2", "m-3"].map(monitorRow).join(",\n    ")};`;

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

const page = (id: string, extra: Partial<StatusPage> = {}): StatusPage => ({
  id,
  organizationId: "o-1",
  name: `Page ${id}`,
  slug: `slug-${id}`,
  description: null,
  logoUrl: null,
  primaryColor: "#112233",
  showServiceBranding: true,
  allowSubscribers: false,
  customDomain: null,
  groups: [],
  createdAt: at(1),
  updatedAt: at(1),
  ...extra,
});

const shown = (monitorId: string, displayOrder: number, extra: Partial<PageMonitor> = {}) => ({
  monitorId,
  displayName: null,
  displayOrder,
  group: null,
  ...extra,
});

const component = (id: string, pageId: string, displayOrder: number): PageComponent => ({
  id,
  statusPageId: pageId,
  kind: "destination",
  targetId: `t-${id}`,
  displayName: `Component ${id}`,
  displayOrder,
  group: "Edge",
});

/** One suite of behaviour every StatusPagesStore implementation must show. */
export function describeStatusPagesStore(name: string, makeStore: MakeStatusPagesStore) {
  describe(`StatusPagesStore on ${name}`, () => {
    test("a page comes back whole, by id within its organization, by slug and by domain", async () => {
      const store = await makeStore();
      const full = page("p-1", {
        description: "All of it",
        logoUrl: "https://example.test/logo.png",
        showServiceBranding: false,
        allowSubscribers: true,
        customDomain: "status.example.test",
        groups: [{ name: "API", order: 1 }],
      });
      expect(await store.insert(full)).toBe("ok");
      expect(await store.find("o-1", "p-1")).toEqual(full);
      expect(await store.findBySlug("slug-p-1")).toEqual(full);
      expect(await store.findByDomain("status.example.test")).toEqual(full);
      expect(await store.find("o-2", "p-1")).toBeNull();
      expect(await store.findBySlug("nothing")).toBeNull();
      expect(await store.findByDomain("nothing.example.test")).toBeNull();
    });

    test("list is the organization's pages, newest first; ties by id descending", async () => {
      const store = await makeStore();
      await store.insert(page("p-1", { createdAt: at(1) }));
      await store.insert(page("p-3", { createdAt: at(2) }));
      await store.insert(page("p-2", { createdAt: at(2) }));
      await store.insert(page("p-9", { organizationId: "o-2", createdAt: at(3) }));
      expect((await store.list("o-1")).map((p) => p.id)).toEqual(["p-3", "p-2", "p-1"]);
      expect((await store.list("o-2")).map((p) => p.id)).toEqual(["p-9"]);
    });

    test("a slug or domain another page holds is refused, on insert and on update", async () => {
      const store = await makeStore();
      await store.insert(page("p-1", { customDomain: "one.example.test" }));
      await store.insert(page("p-2"));
      expect(await store.insert(page("p-3", { slug: "slug-p-1" }))).toBe("slug_taken");
      expect(await store.insert(page("p-3", { customDomain: "one.example.test" }))).toBe(
        "domain_taken",
      );
      expect(await store.update(page("p-2", { slug: "slug-p-1" }))).toBe("slug_taken");
      expect(await store.update(page("p-2", { customDomain: "one.example.test" }))).toBe(
        "domain_taken",
      );
      expect(await store.find("o-1", "p-3")).toBeNull();
      expect((await store.find("o-1", "p-2"))?.slug).toBe("slug-p-2");
    });

    test("two pages inserted at once with one slug: one is stored, the other is told it is taken", async () => {
      const store = await makeStore();
      const outcomes = await Promise.all([
        store.insert(page("p-1", { slug: "shared" })),
        store.insert(page("p-2", { slug: "shared" })),
      ]);
      expect(outcomes.sort()).toEqual(["ok", "slug_taken"]);
      expect(await store.list("o-1")).toHaveLength(1);
    });

    test("update and remove reach only the organization's own page", async () => {
      const store = await makeStore();
      await store.insert(page("p-1"));
      expect(await store.update(page("p-1", { organizationId: "o-2", name: "Stolen" }))).toBe("ok");
      expect((await store.find("o-1", "p-1"))?.name).toBe("Page p-1");
      expect(await store.remove("o-2", "p-1")).toBe(false);
      expect(await store.update(page("p-1", { name: "Renamed", updatedAt: at(5) }))).toBe("ok");
      expect(await store.find("o-1", "p-1")).toMatchObject({ name: "Renamed", updatedAt: at(5) });
      expect(await store.remove("o-1", "p-1")).toBe(true);
      expect(await store.find("o-1", "p-1")).toBeNull();
      expect(await store.remove("o-1", "p-1")).toBe(false);
    });

    test("monitors are shown by display order; attaching again changes how one is shown", async () => {
      const store = await makeStore();
      await store.insert(page("p-1"));
      await store.attach("p-1", shown("m-1", 2));
      await store.attach("p-1", shown("m-2", 1, { displayName: "API", group: "Core" }));
      await store.attach("p-1", shown("m-3", 3));
      expect(await store.monitors("p-1")).toEqual([
        shown("m-2", 1, { displayName: "API", group: "Core" }),
        shown("m-1", 2),
        shown("m-3", 3),
      ]);
      await store.attach("p-1", shown("m-3", 0, { displayName: "First" }));
      expect((await store.monitors("p-1")).map((m) => [m.monitorId, m.displayName])).toEqual([
        ["m-3", "First"],
        ["m-2", "API"],
        ["m-1", null],
      ]);
      expect(await store.detach("p-1", "m-2")).toBe(true);
      expect(await store.detach("p-1", "m-2")).toBe(false);
      expect((await store.monitors("p-1")).map((m) => m.monitorId)).toEqual(["m-3", "m-1"]);
      expect(await store.monitors("p-other")).toEqual([]);
    });

    test("components are shown by display order, then in the order they were added", async () => {
      const store = await makeStore();
      await store.insert(page("p-1"));
      await store.insert(page("p-2"));
      // Ids as the service makes them (UUIDv7): later ones sort after earlier ones.
      const ids = [Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7()];
      const [first, second, third] = ids as [string, string, string];
      await store.insertComponent(component(first, "p-1", 1));
      await store.insertComponent(component(second, "p-1", 0));
      await store.insertComponent(component(third, "p-1", 1));
      await store.insertComponent(component("c-other", "p-2", 0));
      expect(await store.components("p-1")).toEqual([
        component(second, "p-1", 0),
        component(first, "p-1", 1),
        component(third, "p-1", 1),
      ]);
      expect(await store.removeComponent("p-2", first)).toBe(false);
      expect(await store.removeComponent("p-1", first)).toBe(true);
      expect((await store.components("p-1")).map((c) => c.id)).toEqual([second, third]);
      expect((await store.components("p-2")).map((c) => c.id)).toEqual(["c-other"]);
    });
  });
}
