import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Source } from "./sources.model.ts";
import type { SourcesStore } from "./sources.store.ts";

/** A store over a migrated, empty database, and what a test needs around it. */
export interface SourcesStoreFixture {
  store: SourcesStore;
  /** Adds organizations (the rows' foreign key), on the free plan. */
  addOrganizations(ids: string[]): Promise<void>;
  /** The sources the store told dedup to forget, in its removing transaction. */
  forgotten: string[];
  /** Makes the next forgetting fail (its transaction must then keep the source). */
  failNextForget(): void;
  close(): Promise<void>;
}

let counter = 0;

const sourceOf = (organizationId: string, name: string, createdAt: string): Source => {
  counter += 1;
  return {
    id: `src-${counter}-${name}`,
    organizationId,
    name,
    type: "webhook",
    slug: `slug-${counter}-${name}`,
    deduplicationConfig: null,
    verification: null,
    createdAt,
    updatedAt: createdAt,
  };
};

/**
 * One suite of behaviour for every SourcesStore: each dialect's store must answer it alike.
 * Each test works in organizations of its own, so the tests share one database.
 */
export function describeSourcesStore(
  name: string,
  makeStore: () => Promise<SourcesStoreFixture>,
): void {
  describe(`${name}: the sources store`, () => {
    let fixture: SourcesStoreFixture | undefined;
    beforeAll(async () => {
      fixture = await makeStore();
    });
    afterAll(async () => {
      await fixture?.close();
    });

    const opened = () => {
      if (!fixture) throw new Error("the store could not be made (see the error before)");
      return fixture;
    };
    const store = () => opened().store;
    /** Two fresh organizations: the test's own and a stranger's. */
    const organizations = async () => {
      counter += 1;
      const ids = [`org-${counter}-own`, `org-${counter}-other`] as const;
      await opened().addOrganizations([...ids]);
      return ids;
    };

    test("a source reads back as written, its settings decoded, by id, by slug and in its organization", async () => {
      const [own] = await organizations();
      const source: Source = {
        ...sourceOf(own, "Stripe", "2026-02-01T00:00:00.000Z"),
        deduplicationConfig: { enabled: true, body_path: "$.id", ttl_seconds: 60 },
        verification: {
          type: "hmac",
          sealedSecret: "sealed",
          toleranceSeconds: null,
          header: "x-signature",
          algorithm: "sha256",
          encoding: "hex",
          prefix: null,
          signed: "{body}",
          timestampHeader: null,
        },
      };
      expect(await store().insert(source)).toBe(true);
      expect(await store().find(own, source.id)).toEqual(source);
      expect(await store().findById(source.id)).toEqual(source);
      expect(await store().findBySlug(source.slug)).toEqual(source);
      expect(await store().findBySlug("no-such-slug")).toBeNull();
      expect(await store().findById("no-such-id")).toBeNull();
    });

    test("another organization's source is never found, listed, changed or removed", async () => {
      const [own, other] = await organizations();
      const theirs = sourceOf(other, "Theirs", "2026-02-01T00:00:00.000Z");
      await store().insert(theirs);
      expect(await store().find(own, theirs.id)).toBeNull();
      expect(await store().list(own)).toEqual([]);
      expect(await store().remove(own, theirs.id)).toBe(false);
      expect(await store().find(other, theirs.id)).toEqual(theirs);
    });

    test("a name is the organization's once: a second insert or a rename onto it stores nothing", async () => {
      const [own, other] = await organizations();
      const first = sourceOf(own, "GitHub", "2026-02-01T00:00:00.000Z");
      const second = sourceOf(own, "Shopify", "2026-02-02T00:00:00.000Z");
      expect(await store().insert(first)).toBe(true);
      expect(await store().insert({ ...sourceOf(own, "GitHub", first.createdAt) })).toBe(false);
      // Another organization may use the name.
      expect(await store().insert(sourceOf(other, "GitHub", first.createdAt))).toBe(true);
      expect(await store().insert(second)).toBe(true);
      expect(await store().update({ ...second, name: "GitHub" })).toBe(false);
      expect((await store().find(own, second.id))?.name).toBe("Shopify");
      const renamed = { ...second, name: "Shopify EU", updatedAt: "2026-03-01T00:00:00.000Z" };
      expect(await store().update(renamed)).toBe(true);
      expect(await store().find(own, second.id)).toEqual(renamed);
    });

    test("two inserts of one name at once: one is stored", async () => {
      const [own] = await organizations();
      const at = "2026-02-01T00:00:00.000Z";
      const outcomes = await Promise.all(
        Array.from({ length: 4 }, () => store().insert(sourceOf(own, "Raced", at))),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      expect((await store().list(own)).map((s) => s.name)).toEqual(["Raced"]);
    });

    test("two renames onto one name at once: one is stored", async () => {
      const [own] = await organizations();
      const at = "2026-02-01T00:00:00.000Z";
      const sources = [sourceOf(own, "A", at), sourceOf(own, "B", at), sourceOf(own, "C", at)];
      for (const s of sources) await store().insert(s);
      const outcomes = await Promise.all(sources.map((s) => store().update({ ...s, name: "Z" })));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const names = (await store().list(own)).map((s) => s.name);
      expect(names.filter((n) => n === "Z")).toHaveLength(1);
    });

    test("a list is newest first, ties broken by the greater id first", async () => {
      const [own] = await organizations();
      const older = sourceOf(own, "older", "2026-02-01T00:00:00.000Z");
      const tieLow = { ...sourceOf(own, "tie-low", "2026-02-02T00:00:00.000Z"), id: "tie-a" };
      const tieHigh = { ...sourceOf(own, "tie-high", "2026-02-02T00:00:00.000Z"), id: "tie-b" };
      // Upper case sorts before lower case bytewise, as in SQLite.
      const tieUpper = { ...sourceOf(own, "tie-upper", "2026-02-02T00:00:00.000Z"), id: "tie-B" };
      for (const s of [older, tieHigh, tieLow, tieUpper]) await store().insert(s);
      expect((await store().list(own)).map((s) => s.id)).toEqual([
        "tie-b",
        "tie-a",
        "tie-B",
        older.id,
      ]);
    });

    test("removing answers whether the source was there; it is gone after", async () => {
      const [own] = await organizations();
      const source = sourceOf(own, "Gone", "2026-02-01T00:00:00.000Z");
      await store().insert(source);
      expect(await store().remove(own, source.id)).toBe(true);
      expect(await store().remove(own, source.id)).toBe(false);
      expect(await store().findById(source.id)).toBeNull();
    });

    test("a removal forgets the source's dedup keys in its transaction: a failed forget keeps the source", async () => {
      const [own] = await organizations();
      const source = sourceOf(own, "Forgotten", "2026-02-01T00:00:00.000Z");
      await store().insert(source);
      opened().failNextForget();
      await expect(store().remove(own, source.id)).rejects.toThrow();
      expect(await store().find(own, source.id)).toEqual(source);
      expect(opened().forgotten).not.toContain(source.id);
      expect(await store().remove(own, source.id)).toBe(true);
      expect(opened().forgotten).toContain(source.id);
      // Nothing removed, nothing forgotten.
      const before = opened().forgotten.length;
      expect(await store().remove(own, source.id)).toBe(false);
      expect(opened().forgotten).toHaveLength(before);
    });

    test("an organization's plan, free when it has none", async () => {
      const [own] = await organizations();
      expect(await store().planOf(own)).toBe("free");
      expect(await store().planOf("no-such-organization")).toBe("free");
    });
  });
}
