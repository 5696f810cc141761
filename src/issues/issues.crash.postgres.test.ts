import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { seedRoute } from "../test-utils/issues-observer.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";

const CHILD = join(import.meta.dir, "../test-utils/issues-observer-child.ts");
const WORKERS = 6;
/** Attempts on disk before the kill. */
const BEFORE_KILL = 300;
const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-issues-crash-pg-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

function startNode(url: string): Subprocess {
  const proc = Bun.spawn([process.execPath, CHILD, url, tempDir(), String(WORKERS)], {
    stdout: "ignore",
    stderr: "inherit",
  });
  running.push(proc);
  return proc;
}

async function killAll(procs: Subprocess[]) {
  for (const proc of procs) proc.kill("SIGKILL");
  for (const proc of procs) {
    await proc.exited;
    expect(proc.signalCode).toBe("SIGKILL");
  }
}

/** Failed event attempts on disk, what the issues counted, per pattern; the most unclosed issues one pattern has. */
async function countsIn(pg: PostgresDb) {
  const byPattern = (rows: Record<string, unknown>[]) =>
    Object.fromEntries(rows.map((r) => [r.pattern as string, Number(r.n)]));
  return {
    attempts: byPattern(
      await pg.sql`SELECT a.error_type || '/' || a.error_code AS pattern, count(*) AS n
        FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
        WHERE d.kind = 'event' AND a.error_type IS NOT NULL GROUP BY 1`,
    ),
    counted: byPattern(
      await pg.sql`SELECT error_type || '/' || error_code AS pattern, sum(occurrence_count) AS n
        FROM issues GROUP BY 1`,
    ),
    unclosedPerPattern: Number(
      (
        await pg.sql`SELECT count(*) AS n FROM issues WHERE status <> 'closed'
          GROUP BY destination_id, error_type, error_code ORDER BY n DESC LIMIT 1`
      )[0]?.n ?? 0,
    ),
    total: Number((await pg.sql`SELECT count(*) AS n FROM delivery_attempts`)[0]?.n ?? 0),
  };
}

test("on PostgreSQL, kill -9 of two nodes recording failures: every failed attempt on disk is counted by exactly one issue, and nothing else is", async () => {
  const pg = await openMigratedPgDatabase(databases, { poolSize: 2 });
  pools.push(pg);
  await seedRoute(pg.sql, "org", "dest");
  const nodes = [startNode(pg.url), startNode(pg.url)];
  await pollUntil(async () => (await countsIn(pg)).total >= BEFORE_KILL, {
    timeoutMs: 30_000,
    what: `${BEFORE_KILL} attempts recorded`,
  });
  await killAll(nodes);
  const afterKill = await countsIn(pg);
  expect(Object.keys(afterKill.attempts).sort()).toEqual(["http_error/500", "http_error/503"]);
  expect(afterKill.counted).toEqual(afterKill.attempts);
  expect(afterKill.unclosedPerPattern).toBeLessThanOrEqual(1);

  // A node started again carries on from what was committed, and still counts exactly.
  const again = startNode(pg.url);
  await pollUntil(async () => (await countsIn(pg)).total >= afterKill.total + 60, {
    timeoutMs: 30_000,
    what: "attempts recorded after the restart",
  });
  await killAll([again]);
  const afterRestart = await countsIn(pg);
  expect(afterRestart.counted).toEqual(afterRestart.attempts);
  expect(afterRestart.unclosedPerPattern).toBeLessThanOrEqual(1);
}, 90_000);
