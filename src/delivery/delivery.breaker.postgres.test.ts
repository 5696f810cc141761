import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { admit, record } from "./delivery.breaker.model.ts";
import { createPostgresBreakers } from "./delivery.breaker.postgres.ts";

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
  const made = Array.from({ length: n }, () => new SQL(url, { max: 6 }));
  clients.push(...made);
  return made;
}

const OPEN_MS = 30_000;

describe("circuit breakers shared on PostgreSQL", () => {
  test("failures recorded by three nodes at once are all counted, and open the breaker", async () => {
    const clock = createFakeClock();
    const sqls = await nodes(3);
    const recordFailure = (sql: SQL) => {
      const breakers = createPostgresBreakers({ sql, clock });
      return sql.begin((tx) =>
        breakers.update(tx, "dest-a", (s) => record(s, false, clock.now(), OPEN_MS), clock.now()),
      );
    };
    await Promise.all(sqls.flatMap((sql) => Array.from({ length: 10 }, () => recordFailure(sql))));
    const state = await createPostgresBreakers({ sql: sqls[0] as SQL, clock }).read("dest-a");
    expect(state.consecutiveFailures).toBe(30);
    expect(state.recent).toHaveLength(20);
    expect(state.phase).toBe("open");
    const [{ phase }] = await (sqls[0] as SQL)`
      SELECT phase FROM delivery_breakers WHERE destination_key = 'dest-a'`;
    expect(phase).toBe("open");
  });

  test("once the wait is over, nodes asking at once let exactly one probe out", async () => {
    const clock = createFakeClock();
    const sqls = await nodes(2);
    const [first] = sqls as [SQL];
    const opener = createPostgresBreakers({ sql: first, clock });
    for (let i = 0; i < 5; i++) {
      await first.begin((tx) =>
        opener.update(tx, "dest-b", (s) => record(s, false, clock.now(), OPEN_MS), clock.now()),
      );
    }
    clock.advance(OPEN_MS);
    let probes = 0;
    const ask = (sql: SQL) => {
      const breakers = createPostgresBreakers({ sql, clock });
      return sql.begin((tx) =>
        breakers.update(
          tx,
          "dest-b",
          (s) => {
            const admission = admit(s, clock.now());
            if (admission.allowed) probes++;
            return admission.state;
          },
          clock.now(),
        ),
      );
    };
    await Promise.all(sqls.flatMap((sql) => Array.from({ length: 5 }, () => ask(sql))));
    expect(probes).toBe(1);
    expect((await opener.read("dest-b")).phase).toBe("half_open");
  });

  test("a node reads another node's change once its cached copy is older than cacheMs", async () => {
    const clock = createFakeClock();
    const [a, b] = (await nodes(2)) as [SQL, SQL];
    const here = createPostgresBreakers({ sql: a, clock, cacheMs: 1000 });
    const there = createPostgresBreakers({ sql: b, clock, cacheMs: 1000 });
    expect((await here.read("dest-c")).phase).toBe("closed");
    for (let i = 0; i < 5; i++) {
      await b.begin((tx) =>
        there.update(tx, "dest-c", (s) => record(s, false, clock.now(), OPEN_MS), clock.now()),
      );
    }
    expect((await there.read("dest-c")).phase).toBe("open");
    clock.advance(999);
    expect((await here.read("dest-c")).phase).toBe("closed");
    clock.advance(1);
    expect((await here.read("dest-c")).phase).toBe("open");
    await there.forget("dest-c");
    clock.advance(1000);
    expect((await here.read("dest-c")).phase).toBe("closed");
  });
});
