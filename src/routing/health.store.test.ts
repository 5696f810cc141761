import { describe, expect, test } from "bun:test";
import { usePgStoreDatabase } from "../test-utils/store-databases.ts";
import { createTestDb } from "../test-utils/test-db.ts";
import { createHealthPostgresStore } from "./health.postgres.ts";
import { createHealthSqliteStore } from "./health.repo.ts";
import type { HealthStore } from "./health.store.ts";

const pgDatabase = usePgStoreDatabase();

const outcome = (destinationId: string, day: string, fields: Record<string, unknown> = {}) => ({
  destinationId,
  organizationId: "org-a",
  bridgeId: "b1",
  day,
  ended: true,
  delivered: true,
  failedAt: null,
  ...fields,
});

/** One suite over both stores: the same days, sums and last failures. */
function describeHealthStore(name: string, make: () => Promise<HealthStore>) {
  describe(`HealthStore (${name})`, () => {
    test("attempts add up per destination and day; a bridge's days sum its destinations", async () => {
      const store = await make();
      await store.record(null, outcome("d1", "2026-01-01"));
      await store.record(null, outcome("d1", "2026-01-01", { delivered: false, failedAt: 5 }));
      await store.record(null, outcome("d1", "2026-01-01", { ended: false, failedAt: 3 }));
      await store.record(null, outcome("d2", "2026-01-01"));
      await store.record(null, outcome("d2", "2026-01-02", { delivered: false, failedAt: 9 }));
      expect(await store.destinationDays("d1", "2026-01-01")).toEqual([
        { date: "2026-01-01", attempted: 2, delivered: 1 },
      ]);
      expect(await store.bridgeDays("b1", "2026-01-01")).toEqual([
        { date: "2026-01-01", attempted: 3, delivered: 2 },
        { date: "2026-01-02", attempted: 1, delivered: 0 },
      ]);
      expect(await store.lastFailures("b1", "2026-01-01")).toEqual(
        new Map([
          ["d1", 5],
          ["d2", 9],
        ]),
      );
      expect(await store.bridgeDays("b1", "2026-01-02")).toHaveLength(1);
      expect(await store.sweep("2026-01-02")).toBe(2);
      expect(await store.destinationDays("d1", "2000-01-01")).toEqual([]);
    });
  });
}

describeHealthStore("SQLite", async () => createHealthSqliteStore(createTestDb()));
describeHealthStore("PostgreSQL", async () => createHealthPostgresStore((await pgDatabase()).db));
