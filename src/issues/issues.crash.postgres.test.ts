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
const DELIVERY_CHILD = join(import.meta.dir, "../test-utils/issues-delivery-child.ts");
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
let failures = 0;
/** A destination that is down: every delivery fails, with 500 or 503 by its subject. */
const sink = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    failures += 1;
    return new Response("down", { status: request.url.endsWith("1") ? 503 : 500 });
  },
});
afterAll(() => {
  sink.stop(true);
});

function startNode(url: string): Subprocess {
  const proc = Bun.spawn([process.execPath, CHILD, url, tempDir(), String(WORKERS)], {
    stdout: "ignore",
    stderr: "inherit",
  });
  running.push(proc);
  return proc;
}

/** A node of the real outbox with the issues room observing it; resolves once it sends. */
async function startDeliveryNode(url: string): Promise<Subprocess> {
  const proc = Bun.spawn(
    [process.execPath, DELIVERY_CHILD, url, `http://127.0.0.1:${sink.port}`, tempDir()],
    { stdout: "pipe", stderr: "inherit" },
  );
  running.push(proc);
  const reader = proc.stdout.getReader();
  let printed = "";
  while (!printed.includes("ready")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the node ended before it was ready: ${printed}`);
    printed += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return proc;
}

/** Due event deliveries to the crash route's destination, as a node's enqueue writes them. */
async function seedDeliveries(pg: PostgresDb, n: number): Promise<void> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  await pg.sql.begin(async (tx) => {
    for (let i = 0; i < n; i++) {
      await tx`INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key,
          webhook_id, status, attempts, max_retries, next_attempt_at, created_at, updated_at)
        VALUES (${`d${i}`}, 'event', 'org', ${`event-${i}`}, 'dest', ${`msg_${i}`}, 'pending', 0,
          3, ${now}, ${at}, ${at})`;
    }
  });
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

test("on PostgreSQL, kill -9 of two nodes sending deliveries that fail: every failed attempt their outbox recorded is counted by exactly one issue", async () => {
  const pg = await openMigratedPgDatabase(databases, { poolSize: 2 });
  pools.push(pg);
  await seedRoute(pg.sql, "org", "dest");
  const nodes = [await startDeliveryNode(pg.url), await startDeliveryNode(pg.url)];
  await seedDeliveries(pg, 400);
  await pollUntil(async () => (await countsIn(pg)).total >= 150, {
    timeoutMs: 30_000,
    what: "150 attempts recorded",
  });
  await killAll(nodes);
  const afterKill = await countsIn(pg);
  expect(Object.keys(afterKill.attempts).length).toBeGreaterThan(0);
  expect(afterKill.counted).toEqual(afterKill.attempts);
  expect(afterKill.unclosedPerPattern).toBe(1);

  // Started again, a node takes the dead nodes' leases back and still counts exactly.
  const again = await startDeliveryNode(pg.url);
  await pollUntil(async () => (await countsIn(pg)).total >= afterKill.total + 30, {
    timeoutMs: 30_000,
    what: "attempts recorded after the restart",
  });
  await killAll([again]);
  const afterRestart = await countsIn(pg);
  expect(afterRestart.counted).toEqual(afterRestart.attempts);
  expect(afterRestart.unclosedPerPattern).toBe(1);
  expect(failures).toBeGreaterThan(0);
}, 90_000);
