import { afterAll, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import type { Db } from "../db/db.open.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { createDedupRoom } from "./dedup.room.ts";

const databases = usePgDatabases();
const opened: PostgresDb[] = [];
afterAll(async () => {
  for (const pg of opened.splice(0)) await pg.close();
});

/** The room as one node builds it: SQLite untouched (a handle it used would throw). */
function roomOn(postgres: PostgresDb, clock: ReturnType<typeof createFakeClock>) {
  return createDedupRoom(
    {
      postgres,
      db: {} as Db,
      clock,
      logger: createLogger({ level: "error", write: () => {} }),
      config: { dedup_max_keys: 1000, dedup_max_keys_per_organization: 1000 },
    },
    {
      guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
      requireSource: () => undefined,
    },
  );
}

test("on PostgreSQL, two nodes' rooms share keys, counters, forgetting and the sweep", async () => {
  const pg = await openMigratedPgDatabase(databases);
  opened.push(pg);
  // The same database through a client of its own: another node.
  const other = await openPostgres(pg.url, { poolSize: 2 });
  opened.push(other);
  const clock = createFakeClock();
  const [a, b] = [roomOn(pg, clock), roomOn(other, clock)];
  const check = a.ports.checkPostgres;
  const checkB = b.ports.checkPostgres;
  if (!check || !checkB || !a.ports.forgetSourcePostgres) throw new Error("no PostgreSQL ports");
  const key = crypto.getRandomValues(new Uint8Array(32));
  const ticket = { sourceId: "src", key, ttlMs: 60_000 };
  expect(await pg.sql.begin((tx) => check(tx, ticket))).toBe(false);
  expect(await other.sql.begin((tx) => checkB(tx, ticket))).toBe(true);
  await b.ports.countUnverified("src");
  expect(await a.ports.sourceStats("src", "24h")).toEqual({
    total_requests: 2,
    duplicates_rejected: 1,
    duplicate_rate: 50,
    rejected_unverified: 1,
    period: "24h",
  });

  // Past its TTL the key is swept by the cluster's job and is fresh again.
  clock.advance(60_000);
  const sweep = a.jobs.find((job) => job.name === "dedup.sweep");
  await sweep?.run();
  const [left] = await pg.sql`SELECT count(*)::int AS n FROM dedup_shared_keys`;
  expect(left.n).toBe(0);

  expect(await pg.sql.begin((tx) => check(tx, ticket))).toBe(false);
  const forget = a.ports.forgetSourcePostgres;
  await pg.sql.begin((tx) => forget(tx, "src"));
  expect((await b.ports.sourceStats("src", "all_time")).total_requests).toBe(0);
  expect(await other.sql.begin((tx) => checkB(tx, ticket))).toBe(false);
});

test("on SQLite the room lends no PostgreSQL ports", () => {
  const room = createDedupRoom(
    {
      db: {} as Db,
      clock: createFakeClock(),
      logger: createLogger({ level: "error", write: () => {} }),
      config: { dedup_max_keys: 1000, dedup_max_keys_per_organization: 1000 },
    },
    {
      guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
      requireSource: () => undefined,
    },
  );
  expect(room.ports.checkPostgres).toBeUndefined();
  expect(room.ports.forgetSourcePostgres).toBeUndefined();
});
