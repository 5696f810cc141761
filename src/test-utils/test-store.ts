import { afterAll } from "bun:test";
import { PENDING_ON_POSTGRES, type PendingRoom } from "../rooms.pending.ts";
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

/**
 * True when this run is on PostgreSQL and `room` does not run there yet (its paths answer 501):
 * its cases skip, and run again once the room leaves rooms.pending.ts.
 */
export function pendingHere(room: PendingRoom): boolean {
  return onPostgres && room in PENDING_ON_POSTGRES;
}

/** True when this run is on PostgreSQL and the API path (`/api/v1/x/{id}`) is a pending room's. */
export function pendingPathHere(path: string): boolean {
  if (!onPostgres) return false;
  const template = path.replace(/\{([^}]+)\}/g, ":$1");
  return Object.values(PENDING_ON_POSTGRES).some((prefixes) =>
    prefixes.some((prefix: string) => template === prefix || template.startsWith(`${prefix}/`)),
  );
}
