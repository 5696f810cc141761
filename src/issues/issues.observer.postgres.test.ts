import { afterAll, expect, test } from "bun:test";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import { createLogger } from "../shared/logger.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { issuesNode, seedDelivery, seedRoute } from "../test-utils/issues-observer.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import type { IssueChange } from "./issues.ports.ts";
import { ISSUES_RETENTION_JOB } from "./issues.room.ts";

// The issues room on PostgreSQL, told of attempts the way the delivery room tells it: inside the
// `sql.begin` transaction that records each attempt, from two nodes with their own pools.

const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-issues-observer-");
const at = (second: number) => new Date(Date.UTC(2026, 5, 1, 0, 0, second)).toISOString();

async function twoNodes() {
  const pg = await openMigratedPgDatabase(databases, { poolSize: 4 });
  pools.push(pg);
  const route = await seedRoute(pg.sql, "org", "dest");
  const clock = createFakeClock(Date.UTC(2026, 5, 1));
  const logged: string[] = [];
  const logger = createLogger({ level: "error", write: (line) => void logged.push(line) });
  const nodes = [];
  for (let i = 0; i < 2; i++) {
    const own = await openPostgres(pg.url, { poolSize: 4 });
    pools.push(own);
    // The issues open at the clock's time, before the attempts' own times.
    nodes.push(issuesNode(own, [route], { dataDir: tempDir(), logger, clock }));
  }
  const [one, two] = nodes;
  if (!one || !two) throw new Error("two nodes");
  return { pg, route, one, two, logged };
}

const countOf = async (
  pg: PostgresDb,
): Promise<{ id: unknown; count: number; status: unknown }[]> =>
  (await pg.sql`SELECT id, occurrence_count, status FROM issues`).map(
    (r: Record<string, unknown>) => ({
      id: r.id,
      count: Number(r.occurrence_count),
      status: r.status,
    }),
  );

test("failed attempts recorded by two nodes at once make one issue counting each; each listener reads its change inside the attempt's transaction", async () => {
  const { pg, route, one, two } = await twoNodes();
  const heard: { change: IssueChange; seen: number }[] = [];
  for (const node of [one, two]) {
    node.room.ports.onIssueChangePostgres?.(async (tx: PostgresTx, change) => {
      const unclosed = await node.room.ports.listUnclosedOfDestinationPostgres?.(
        tx,
        change.issue.organizationId,
        change.issue.destinationId,
      );
      // Seen only inside the transaction until it commits: the first change included.
      heard.push({ change, seen: unclosed?.find((i) => i.id === change.issue.id) ? 1 : 0 });
    });
    node.room.ports.onIssueChange(() => {
      throw new Error("the SQLite listener is never told on PostgreSQL");
    });
  }
  const deliveries = await Promise.all(
    Array.from({ length: 8 }, (_, i) => seedDelivery(pg.sql, `d${i}`, route)),
  );
  await Promise.all(
    deliveries.flatMap((delivery, i) =>
      [0, 1, 2].map((n) =>
        (i % 2 ? one : two).attempt(delivery, { status: 500, at: at(i * 3 + n) }),
      ),
    ),
  );
  const [issue, ...more] = await countOf(pg);
  expect([issue?.count, issue?.status, more.length]).toEqual([24, "open", 0]);
  const kinds: string[] = heard.map((h) => h.change.kind).sort();
  expect(kinds).toEqual(["created", ...Array.from({ length: 23 }, () => "occurred")]);
  expect(heard.every((h) => h.seen === 1)).toBe(true);
  expect(heard[0]?.change.context).toEqual({
    bridgeName: "Orders",
    sourceName: "source-dest",
    destinationName: "Billing",
    destinationType: "http",
    destinationPriority: "high",
  });
  const [{ n } = { n: 0 }] = await pg.sql`SELECT count(*)::int AS n FROM issue_samples`;
  expect(n).toBeGreaterThanOrEqual(5);
  expect(n).toBeLessThanOrEqual(9);
});

test("an attempt whose transaction rolls back leaves no count; a listener that throws loses only its own writes", async () => {
  const { pg, route, one, logged } = await twoNodes();
  const delivery = await seedDelivery(pg.sql, "d1", route);
  await one.attempt(delivery, { status: 500, at: at(1) });
  await expect(one.attempt(delivery, { status: 500, at: at(2), abort: true })).rejects.toThrow(
    "recording the attempt failed",
  );
  expect((await countOf(pg)).map((i) => i.count)).toEqual([1]);

  one.room.ports.onIssueChangePostgres?.(async (tx, change) => {
    await tx`UPDATE issues SET error_message = 'written by the listener' WHERE id = ${change.issue.id}`;
    throw new Error("the listener broke");
  });
  await one.attempt(delivery, { status: 500, at: at(3) });
  const [issue] = await pg.sql`SELECT occurrence_count, error_message FROM issues`;
  expect([Number(issue.occurrence_count), issue.error_message]).toEqual([2, "HTTP 500"]);
  expect(logged.some((line) => line.includes("an issue listener failed"))).toBe(true);
  const [{ n } = { n: 0 }] = await pg.sql`SELECT count(*)::int AS n FROM delivery_attempts`;
  expect(n).toBe(2);
});

test("a success marks the destination's unclosed issue; forwards and deleted destinations make no issue", async () => {
  const { pg, route, one } = await twoNodes();
  const delivery = await seedDelivery(pg.sql, "d1", route);
  await one.attempt(delivery, { status: 503, at: at(1) });
  await one.attempt(delivery, { status: 200, at: at(2) });
  const [issue] = await pg.sql`SELECT last_success_at FROM issues`;
  expect(issue.last_success_at).toBe(at(2));

  const forward = await seedDelivery(pg.sql, "f1", route, "forward");
  await one.attempt(forward, { status: 502, at: at(3) });
  const gone = await seedDelivery(pg.sql, "g1", { ...route, destinationId: "gone" });
  await one.attempt(gone, { status: 502, at: at(4) });
  expect((await countOf(pg)).map((i) => i.count)).toEqual([1]);
});

test("/metrics counts issues by status as of the scrape; the closed-issue sweep runs on the leader only", async () => {
  const { pg, route, one } = await twoNodes();
  const sweep = one.room.jobs.find((job) => job.name === ISSUES_RETENTION_JOB);
  expect(sweep?.scope).toBe("cluster");
  await one.attempt(await seedDelivery(pg.sql, "d1", route), { status: 500, at: at(1) });
  await one.attempt(await seedDelivery(pg.sql, "d2", route), { status: 404, at: at(2) });
  expect(await one.room.ports.metricLines()).toContain('weir_issues{status="open"} 2');
  expect(await one.room.ports.metricLines()).toContain('weir_issues{status="closed"} 0');
});
