import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createPostgresDedupKeys } from "./dedup.keys.postgres.ts";

const databases = usePgDatabases();
const clients: SQL[] = [];
afterAll(async () => {
  for (const sql of clients.splice(0)) await sql.close();
});

let migrated: Promise<string> | undefined;
/** The file's migrated database (each test uses sources of its own). */
function databaseUrl(): Promise<string> {
  migrated ??= (async () => {
    const db = await databases.create();
    const sql = new SQL(db.url, { max: 1 });
    await runPgMigrations(sql, PG_MIGRATIONS);
    await sql.close();
    return db.url;
  })();
  return migrated;
}

/** `n` clients on the database, each standing for one node. */
async function nodes(n: number): Promise<SQL[]> {
  const url = await databaseUrl();
  const made = Array.from({ length: n }, () => new SQL(url, { max: 8 }));
  clients.push(...made);
  return made;
}

const keyOf = (i: number) => new Uint8Array(32).fill(i);
const T0 = 1_800_000_000_000;

describe("dedup keys shared on PostgreSQL", () => {
  test("two nodes offered the same keys at once: each key is accepted exactly once", async () => {
    const [a, b] = (await nodes(2)) as [SQL, SQL];
    const keysA = createPostgresDedupKeys(a);
    const keysB = createPostgresDedupKeys(b);
    const offer = (sql: SQL, keys: typeof keysA, i: number) =>
      sql.begin((tx) => keys.claim(tx, "source-1", keyOf(i), T0 + 60_000, T0));
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => Promise.all([offer(a, keysA, i), offer(b, keysB, i)])),
    );
    for (const pair of results) expect(pair.sort()).toEqual(["duplicate", "fresh"]);
    // Another source's identical key is its own.
    expect(await keysA.claim(a, "source-2", keyOf(0), T0 + 60_000, T0)).toBe("fresh");
  });

  test("an expired key is accepted again, by one node only", async () => {
    const [a, b] = (await nodes(2)) as [SQL, SQL];
    const keysA = createPostgresDedupKeys(a);
    const keysB = createPostgresDedupKeys(b);
    expect(await keysA.claim(a, "expiring", keyOf(1), T0 + 1000, T0)).toBe("fresh");
    expect(await keysB.claim(b, "expiring", keyOf(1), T0 + 2000, T0 + 999)).toBe("duplicate");
    const after = T0 + 1000;
    const again = await Promise.all([
      a.begin((tx) => keysA.claim(tx, "expiring", keyOf(1), after + 1000, after)),
      b.begin((tx) => keysB.claim(tx, "expiring", keyOf(1), after + 1000, after)),
    ]);
    expect(again.sort()).toEqual(["duplicate", "fresh"]);
    expect(await keysA.claim(a, "expiring", keyOf(1), after + 5000, after + 999)).toBe("duplicate");
  });

  test("a key taken in a transaction that rolls back stays free", async () => {
    const [a, b] = (await nodes(2)) as [SQL, SQL];
    const keys = createPostgresDedupKeys(a);
    const rolledBack = a.begin(async (tx) => {
      expect(await keys.claim(tx, "rolled-back", keyOf(2), T0 + 1000, T0)).toBe("fresh");
      throw new Error("the event's insert failed");
    });
    expect(rolledBack).rejects.toThrow("the event's insert failed");
    await rolledBack.catch(() => {});
    expect(await createPostgresDedupKeys(b).claim(b, "rolled-back", keyOf(2), T0 + 1000, T0)).toBe(
      "fresh",
    );
  });

  test("the sweep deletes expired keys in batches; forget drops a source's keys", async () => {
    const [a] = (await nodes(1)) as [SQL];
    const keys = createPostgresDedupKeys(a);
    for (let i = 0; i < 25; i++)
      await keys.claim(a, "swept", keyOf(i), T0 + (i < 20 ? 10 : 10_000), T0);
    await keys.claim(a, "gone", keyOf(1), T0 + 10_000, T0);
    expect(await keys.sweep(T0 + 100, 7)).toBe(20);
    await a.begin((tx) => keys.forget(tx, "gone"));
    const [{ n }] =
      await a`SELECT count(*)::int AS n FROM dedup_shared_keys WHERE source_id IN ('swept', 'gone')`;
    expect(n).toBe(5);
    expect(await keys.claim(a, "gone", keyOf(1), T0 + 10_000, T0)).toBe("fresh");
  });
});
