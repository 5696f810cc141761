import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TransformationRow, TransformationsStore } from "./transformations.store.ts";

/** A store over a migrated, empty database, and what a test needs around it. */
export interface TransformationsStoreFixture {
  store: TransformationsStore;
  /** Adds organizations (the rows' foreign key). */
  addOrganizations(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * One suite of behaviour for every TransformationsStore: each dialect's store must answer it
 * alike. Each test works in organizations of its own, so the tests share one database.
 */
export function describeTransformationsStore(
  name: string,
  makeStore: () => Promise<TransformationsStoreFixture>,
): void {
  describe(`${name}: the transformations store`, () => {
    let fixture: TransformationsStoreFixture | undefined;
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
    const organizations = async () => {
      counter += 1;
      const ids = [`org-${counter}-own`, `org-${counter}-other`] as const;
      await opened().addOrganizations([...ids]);
      return ids;
    };
    const row = (
      organizationId: string,
      id: string,
      at = "2026-01-01T00:00:00.000Z",
    ): TransformationRow => ({
      id: `${organizationId}/${id}`,
      organizationId,
      name: `named ${id}`,
      code: `addHandler("transform", (r) => r); // ${id}`,
      createdAt: at,
      updatedAt: at,
    });

    test("insert, then find by id; another organization's id or a missing one is null", async () => {
      const [org, other] = await organizations();
      const saved = row(org, "t1");
      await store().insert(saved);
      expect(await store().find(org, saved.id)).toEqual(saved);
      expect(await store().find(other, saved.id)).toBeNull();
      expect(await store().find(org, `${org}/missing`)).toBeNull();
    });

    test("an id already stored is refused", async () => {
      const [org] = await organizations();
      const saved = row(org, "twice");
      await store().insert(saved);
      await expect(store().insert({ ...saved, name: "again" })).rejects.toThrow();
      expect(await store().find(org, saved.id)).toEqual(saved);
    });

    test("list: newest first, ties by the larger id first; only the organization's own", async () => {
      const [org, other] = await organizations();
      const oldest = row(org, "a", "2026-01-01T00:00:00.000Z");
      const tied = ["b_x", "ba", "b1"].map((id) => row(org, id, "2026-01-02T00:00:00.000Z"));
      for (const saved of [oldest, ...tied, row(other, "z", "2026-01-03T00:00:00.000Z")]) {
        await store().insert(saved);
      }
      expect((await store().list(org)).map((t) => t.id)).toEqual([
        `${org}/ba`,
        `${org}/b_x`,
        `${org}/b1`,
        `${org}/a`,
      ]);
      expect((await store().list(org))[3]).toEqual(oldest);
      expect((await store().list(other)).map((t) => t.id)).toEqual([`${other}/z`]);
      expect(await store().list("org-without-transformations")).toEqual([]);
    });

    test("update writes name, code and date, and never another organization's row", async () => {
      const [org, other] = await organizations();
      const saved = row(org, "edited");
      await store().insert(saved);
      const changed = {
        ...saved,
        name: "renamed",
        code: "addHandler('transform', () => null);",
        updatedAt: "2026-03-01T00:00:00.000Z",
      };
      await store().update(changed);
      expect(await store().find(org, saved.id)).toEqual(changed);
      await store().update({ ...changed, organizationId: other, name: "hijacked" });
      expect(await store().find(org, saved.id)).toEqual(changed);
      expect(await store().find(other, saved.id)).toBeNull();
    });

    test("remove deletes within the organization only; a second remove is false", async () => {
      const [org, other] = await organizations();
      const saved = row(org, "gone");
      await store().insert(saved);
      expect(await store().remove(other, saved.id)).toBe(false);
      expect(await store().find(org, saved.id)).toEqual(saved);
      expect(await store().remove(org, saved.id)).toBe(true);
      expect(await store().find(org, saved.id)).toBeNull();
      expect(await store().remove(org, saved.id)).toBe(false);
    });
  });
}
