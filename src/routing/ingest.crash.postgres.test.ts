import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";

const CHILD = join(import.meta.dir, "../test-utils/ingest-child.ts");
const WORKERS = 8;
/** Acknowledged events to wait for before the kill. */
const BEFORE_KILL = 300;
const CREATED = "2026-01-01T00:00:00.000Z";
const databases = usePgDatabases();
const pools: PostgresDb[] = [];
const running: Subprocess[] = [];
afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});
afterAll(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

/** An organization's source with one bridge of two http destinations. */
async function seedRoute(pg: PostgresDb) {
  await pg.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES ('org', 'org', 'free', ${CREATED}, ${CREATED})`;
  await pg.sql`INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
    VALUES ('src', 'org', 'Shop', 'webhook', 'shop', ${CREATED}, ${CREATED})`;
  await pg.sql`INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
    VALUES ('br', 'org', 'src', 'Orders', 'active', ${CREATED}, ${CREATED})`;
  for (const id of ["dst-a", "dst-b"]) {
    await pg.sql`INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, url,
        max_retries, filters, created_at, updated_at)
      VALUES (${id}, 'br', 'org', ${id}, 'http', 'normal', 'http://127.0.0.1:9/', 3, '[]',
        ${CREATED}, ${CREATED})`;
  }
}

/** Reads the child's acknowledged ids (whole lines only) until `count`, then kills it mid-stream. */
async function ackedThenKilled(proc: Subprocess<"ignore", "pipe", "inherit">, count: number) {
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 60_000;
  while (text.split("\n").length - 1 < count) {
    if (Date.now() > deadline) throw new Error("the node acknowledged too few events in time");
    const { value, done } = await reader.read();
    if (done) throw new Error("the node exited before the kill");
    text += decoder.decode(value, { stream: true });
  }
  proc.kill("SIGKILL");
  // Lines already written before the kill are acknowledgements too.
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await proc.exited;
  expect(proc.signalCode).toBe("SIGKILL");
  const lines = text.split("\n");
  return lines.slice(0, -1);
}

test("on PostgreSQL, kill -9 under ingest load loses no acknowledged event: each is stored with its deliveries", async () => {
  const pg = await openMigratedPgDatabase(databases);
  pools.push(pg);
  await seedRoute(pg);
  const proc = Bun.spawn([process.execPath, CHILD, pg.url, "src", String(WORKERS)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  running.push(proc);
  const acked = await ackedThenKilled(proc, BEFORE_KILL);
  expect(acked.length).toBeGreaterThanOrEqual(BEFORE_KILL);

  const stored = await pg.sql`
    SELECT e.id, s.open_deliveries,
      (SELECT count(*) FROM deliveries d WHERE d.kind = 'event' AND d.subject_id = e.id) AS deliveries,
      (SELECT count(*) FROM event_bridges b WHERE b.event_id = e.id) AS bridges
    FROM events e JOIN event_states s ON s.event_id = e.id
    WHERE e.id IN ${pg.sql(acked)}`;
  const byId = new Map(stored.map((row: Record<string, unknown>) => [row.id as string, row]));
  const missing = acked.filter((id) => !byId.has(id));
  expect(missing).toEqual([]);
  for (const row of stored) {
    expect([row.open_deliveries, Number(row.deliveries), Number(row.bridges)]).toEqual([2, 2, 1]);
  }
  // Nothing half-written either: every stored event has its deliveries, acknowledged or not.
  const torn = await pg.sql`
    SELECT e.id FROM events e
    WHERE (SELECT count(*) FROM deliveries d WHERE d.subject_id = e.id) <> 2`;
  expect(torn).toEqual([]);
});
