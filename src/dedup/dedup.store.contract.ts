import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { DedupStore } from "./dedup.store.ts";

/** A store over a migrated, empty database. */
export interface DedupStoreFixture {
  store: DedupStore;
  close(): Promise<void>;
}

const HOUR_MS = 3_600_000;
const HOUR = 1_780_000_000_000 - (1_780_000_000_000 % HOUR_MS);
let counter = 0;

/**
 * One suite of behaviour for every DedupStore: each dialect's store must answer it alike.
 * Each test counts for sources of its own, so the tests share one database.
 */
export function describeDedupStore(
  name: string,
  makeStore: () => Promise<DedupStoreFixture>,
): void {
  describe(`${name}: the dedup counters store`, () => {
    let fixture: DedupStoreFixture | undefined;
    beforeAll(async () => {
      fixture = await makeStore();
    });
    afterAll(async () => {
      await fixture?.close();
    });
    const store = () => {
      if (!fixture) throw new Error("the store could not be made (see the error before)");
      return fixture.store;
    };
    const sources = () => {
      counter += 1;
      return [`src-${counter}-own`, `src-${counter}-other`] as const;
    };

    test("a source with no counters sums to zero", async () => {
      const [own] = sources();
      expect(await store().totals(own, Number.MIN_SAFE_INTEGER)).toEqual({
        totalRequests: 0,
        duplicatesRejected: 0,
        rejectedUnverified: 0,
      });
    });

    test("counts add up per hour and the totals sum the hours from the one asked, per source", async () => {
      const [own, other] = sources();
      await store().countIngests(own, HOUR - HOUR_MS, 5, 1);
      await store().countIngests(own, HOUR, 3, 2);
      await store().countIngests(own, HOUR, 4, 0);
      await store().countUnverified(own, HOUR);
      await store().countUnverified(own, HOUR);
      await store().countIngests(other, HOUR, 100, 50);
      expect(await store().totals(own, HOUR)).toEqual({
        totalRequests: 7,
        duplicatesRejected: 2,
        rejectedUnverified: 2,
      });
      expect(await store().totals(own, Number.MIN_SAFE_INTEGER)).toEqual({
        totalRequests: 12,
        duplicatesRejected: 3,
        rejectedUnverified: 2,
      });
    });

    test("counts made at once are all kept", async () => {
      const [own] = sources();
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          i % 2 ? store().countIngests(own, HOUR, 1, 1) : store().countUnverified(own, HOUR),
        ),
      );
      expect(await store().totals(own, HOUR)).toEqual({
        totalRequests: 4,
        duplicatesRejected: 4,
        rejectedUnverified: 4,
      });
    });

    test("forgetting a source drops its counters and leaves another source's", async () => {
      const [own, other] = sources();
      await store().countIngests(own, HOUR, 2, 1);
      await store().countIngests(other, HOUR, 3, 0);
      await store().forgetSource(own);
      expect((await store().totals(own, HOUR)).totalRequests).toBe(0);
      expect((await store().totals(other, HOUR)).totalRequests).toBe(3);
    });
  });
}
