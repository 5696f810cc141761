import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createPostgresKeyedLimiter } from "./token-bucket.postgres.ts";
import { perMinute } from "./token-bucket.ts";

const databases = usePgDatabases();
const clients: SQL[] = [];
afterAll(async () => {
  for (const sql of clients.splice(0)) await sql.close();
});

let migrated: Promise<string> | undefined;
/** `n` clients on the file's migrated database, each standing for one node. */
async function nodes(n: number): Promise<SQL[]> {
  migrated ??= (async () => {
    const db = await databases.create();
    const sql = new SQL(db.url, { max: 1 });
    await runPgMigrations(sql, PG_MIGRATIONS);
    await sql.close();
    return db.url;
  })();
  const url = await migrated;
  const made = Array.from({ length: n }, () => new SQL(url, { max: 5 }));
  clients.push(...made);
  return made;
}

describe("a keyed limiter shared on PostgreSQL", () => {
  test("three nodes taking at once are allowed the bucket's capacity in total", async () => {
    const rule = perMinute(10, 1);
    const limiters = (await nodes(3)).map((sql) => createPostgresKeyedLimiter(sql, "login", rule));
    const answers = await Promise.all(
      limiters.flatMap((limiter) => Array.from({ length: 10 }, () => limiter.take("203.0.113.7"))),
    );
    expect(answers.filter((wait) => wait === 0)).toHaveLength(10);
    // Refused takes are told to wait about one refill (60 s for one per minute).
    const waits = new Set(answers.filter((wait) => wait > 0));
    expect([...waits].every((wait) => wait >= 1 && wait <= 60)).toBe(true);
    // Another key, and the same key under another limiter's name, have buckets of their own.
    expect(await limiters[0]?.take("198.51.100.1")).toBe(0);
    const other = createPostgresKeyedLimiter((await nodes(1))[0] as SQL, "registration", rule);
    expect(await other.take("203.0.113.7")).toBe(0);
  });

  test("a drained bucket refills on the server's clock, for every node", async () => {
    const rule = { burst: 2, ratePerSecond: 1 };
    const [a, b] = (await nodes(2)).map((sql) => createPostgresKeyedLimiter(sql, "refill", rule));
    expect(await a?.take("k")).toBe(0);
    expect(await b?.take("k")).toBe(0);
    expect(await a?.take("k")).toBe(1);
    await pollUntil(async () => (await b?.take("k")) === 0, {
      what: "a token to come back",
      intervalMs: 20,
    });
  });

  test("a bucket that never refills says to ask again in an hour", async () => {
    const [sql] = await nodes(1);
    const limiter = createPostgresKeyedLimiter(sql as SQL, "never", { burst: 1, ratePerSecond: 0 });
    expect(await limiter.take("k")).toBe(0);
    expect(await limiter.take("k")).toBe(3600);
  });

  test("the sweep drops the buckets full again, only its own limiter's", async () => {
    const [sql] = (await nodes(1)) as [SQL];
    const fast = createPostgresKeyedLimiter(sql, "sweep_fast", { burst: 1, ratePerSecond: 100 });
    const slow = createPostgresKeyedLimiter(sql, "sweep_slow", perMinute(1, 1));
    await fast.take("a");
    await fast.take("b");
    await slow.take("a");
    const swept = await pollUntil(async () => (await fast.sweep()) || false, {
      what: "the fast buckets to be full again",
    });
    expect(swept).toBe(2);
    expect(await slow.sweep()).toBe(0);
    expect(await slow.take("a")).toBeGreaterThan(0);
  });
});
