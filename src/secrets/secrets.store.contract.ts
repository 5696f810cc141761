import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SecretRow, SecretsStore } from "./secrets.store.ts";

/** A store over a migrated, empty database, and what a test needs around it. */
export interface SecretsStoreFixture {
  store: SecretsStore;
  /** Adds organizations (the rows' foreign key). */
  addOrganizations(ids: string[]): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * One suite of behaviour for every SecretsStore: each dialect's store must answer it alike.
 * Each test works in organizations of its own, so the tests share one database.
 */
export function describeSecretsStore(
  name: string,
  makeStore: () => Promise<SecretsStoreFixture>,
): void {
  describe(`${name}: the secrets store`, () => {
    let fixture: SecretsStoreFixture | undefined;
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
    const row = (organizationId: string, name: string, at = "2026-01-01T00:00:00.000Z") =>
      ({
        id: `${organizationId}-${name}-${counter}-${Math.random().toString(36).slice(2)}`,
        organizationId,
        name,
        sealedValue: `sealed(${name})`,
        createdAt: at,
        updatedAt: at,
      }) satisfies SecretRow;

    test("insert, then find by name; a missing name is null", async () => {
      const [org] = await organizations();
      const secret = row(org, "API_TOKEN");
      expect(await store().insert(secret)).toBe(true);
      expect(await store().find(org, "API_TOKEN")).toEqual(secret);
      expect(await store().find(org, "NOPE")).toBeNull();
    });

    test("a taken name is refused and the first value kept; another organization may use it", async () => {
      const [org, other] = await organizations();
      const first = row(org, "TAKEN");
      expect(await store().insert(first)).toBe(true);
      expect(await store().insert({ ...row(org, "TAKEN"), sealedValue: "second" })).toBe(false);
      expect(await store().find(org, "TAKEN")).toEqual(first);
      const theirs = { ...row(other, "TAKEN"), sealedValue: "theirs" };
      expect(await store().insert(theirs)).toBe(true);
      expect(await store().find(other, "TAKEN")).toEqual(theirs);
      expect(await store().find(org, "TAKEN")).toEqual(first);
    });

    test("concurrent inserts of one name: exactly one wins, and it is the one stored", async () => {
      const [org] = await organizations();
      const racers = Array.from({ length: 8 }, (_, i) => ({
        ...row(org, "RACED"),
        sealedValue: `value-${i}`,
      }));
      const won = await Promise.all(racers.map((racer) => store().insert(racer)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store().find(org, "RACED")).toEqual(racers[won.indexOf(true)] as SecretRow);
      expect(await store().list(org)).toHaveLength(1);
    });

    test("list: newest first, then by name compared bytewise; only the organization's own", async () => {
      const [org, other] = await organizations();
      const older = row(org, "ZED", "2026-01-01T00:00:00.000Z");
      const tied = ["B_X", "BA", "A1"].map((n) => row(org, n, "2026-01-02T00:00:00.000Z"));
      for (const secret of [older, ...tied, row(other, "THEIRS", "2026-01-03T00:00:00.000Z")]) {
        await store().insert(secret);
      }
      expect((await store().list(org)).map((s) => s.name)).toEqual(["A1", "BA", "B_X", "ZED"]);
      expect((await store().list(org))[0]).toEqual(tied[2] as SecretRow);
      expect((await store().list(other)).map((s) => s.name)).toEqual(["THEIRS"]);
      expect(await store().list("org-without-secrets")).toEqual([]);
    });

    test("updateValue replaces the value and its date only in the organization named", async () => {
      const [org, other] = await organizations();
      const mine = row(org, "ROTATED");
      const theirs = row(other, "ROTATED");
      await store().insert(mine);
      await store().insert(theirs);
      const at = "2026-02-01T00:00:00.000Z";
      expect(await store().updateValue(org, "ROTATED", "sealed(new)", at)).toBe(true);
      expect(await store().find(org, "ROTATED")).toEqual({
        ...mine,
        sealedValue: "sealed(new)",
        updatedAt: at,
      });
      expect(await store().find(other, "ROTATED")).toEqual(theirs);
      expect(await store().updateValue(org, "MISSING", "x", at)).toBe(false);
      expect(await store().find(org, "MISSING")).toBeNull();
    });

    test("remove deletes the organization's secret alone; a second remove is false", async () => {
      const [org, other] = await organizations();
      await store().insert(row(org, "GONE"));
      const theirs = row(other, "GONE");
      await store().insert(theirs);
      expect(await store().remove(org, "GONE")).toBe(true);
      expect(await store().find(org, "GONE")).toBeNull();
      expect(await store().remove(org, "GONE")).toBe(false);
      expect(await store().find(other, "GONE")).toEqual(theirs);
    });
  });
}
