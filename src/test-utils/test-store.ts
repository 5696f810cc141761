import { afterAll } from "bun:test";
import { createTestPgDatabase, type TestPgDatabase } from "./postgres.ts";

/** Which store the e2e servers of this run use: `WEIR_TEST_STORE=postgres`, else SQLite. */
export type TestStore = "sqlite" | "postgres";

export function testStore(): TestStore {
  return process.env.WEIR_TEST_STORE === "postgres" ? "postgres" : "sqlite";
}

/** True when this run's servers keep their data in PostgreSQL (a SQLite-only check skips then). */
export const onPostgres = testStore() === "postgres";

/** The key every test node on PostgreSQL shares (a node there refuses to start without one). */
export const TEST_SECRET_KEY = "ab".repeat(32);

const byDataDir = new Map<string, TestPgDatabase>();
if (onPostgres) {
  afterAll(async () => {
    for (const db of byDataDir.values()) await db.drop();
    byDataDir.clear();
  }, 60_000);
}

/**
 * The PostgreSQL database of a data dir in this test file: created fresh the first time, the same
 * one when a process is started again on that data dir (a restart after a crash), dropped after
 * the file.
 */
export async function pgDatabaseFor(dataDir: string): Promise<TestPgDatabase> {
  const known = byDataDir.get(dataDir);
  if (known) return known;
  const db = await createTestPgDatabase();
  byDataDir.set(dataDir, db);
  return db;
}
