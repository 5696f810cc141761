import { afterAll, describe, expect, test } from "bun:test";
import { runPgMigrations } from "../db/db.migrate.pg.ts";
import { PG_MIGRATIONS } from "../db/db.migrations.pg.ts";
import { openPostgres } from "../db/db.postgres.ts";
import type { PostgresDb } from "../db/db.postgres-handle.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import type { CaptureTarget } from "./capture.model.ts";
import type { CommittedCapture } from "./capture.writer.ts";
import { createCapturePostgresWriter } from "./capture-writer.postgres.ts";

// Pools close before their databases are dropped (hooks run in the order they were added).
const pools: PostgresDb[] = [];
afterAll(async () => {
  for (const pg of pools.splice(0)) await pg.close();
});
const databases = usePgDatabases();

const T0 = "2026-01-01T00:00:00.000Z";

let shared: Promise<{ url: string; pg: PostgresDb; observer: PostgresDb }> | null = null;
/** The file's database, migrated once, with the writer's pool and a second pool to look from. */
function database() {
  shared ??= (async () => {
    const made = await databases.create();
    const pg = await openPostgres(made.url, { poolSize: 4 });
    const observer = await openPostgres(made.url, { poolSize: 2 });
    pools.push(pg, observer);
    await runPgMigrations(pg.sql, PG_MIGRATIONS);
    return { url: made.url, pg, observer };
  })();
  return shared;
}

/** Endpoints e1…e3 of one organization, nothing captured yet, and a writer over them. */
async function world() {
  const { url, pg, observer } = await database();
  await pg.sql`TRUNCATE organizations, debug_endpoints, captured_requests CASCADE`;
  await pg.sql`INSERT INTO organizations (id, name, plan, created_at, updated_at)
    VALUES ('o1', 'org', 'team', ${T0}, ${T0})`;
  for (const id of ["e1", "e2", "e3"]) {
    await pg.sql`INSERT INTO debug_endpoints (id, organization_id, name, slug, status, created_at, updated_at)
      VALUES (${id}, 'o1', ${id}, ${`slug-${id}`}, 'active', ${T0}, ${T0})`;
  }
  const batches: string[][] = [];
  const writer = createCapturePostgresWriter({
    pg,
    onCommitted: (batch) => batches.push(batch.map((c) => c.request.id)),
  });
  const stored = async (id: string) =>
    (await observer.sql`SELECT 1 FROM captured_requests WHERE id = ${id}`).length === 1;
  const counters = async () => {
    const rows = await observer.sql`SELECT id, request_count::integer AS n, drain_pending AS d
      FROM debug_endpoints ORDER BY id`;
    return Object.fromEntries(
      rows.map((r: { id: string; n: number; d: number }) => [r.id, [r.n, r.d]]),
    );
  };
  return { url, pg, observer, writer, batches, stored, counters };
}

const target = (id: string): CaptureTarget => ({
  id,
  organizationId: "o1",
  slug: `slug-${id}`,
  forwardUrl: null,
});
const capture = (id: string, endpointId: string) => makeCapturedRequest({ id, endpointId });
const idsOf = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, "0")}`);

describe("PostgreSQL capture writer", () => {
  test("captures of one turn are one transaction; each is answered after its COMMIT", async () => {
    const w = await world();
    const ids = idsOf(300, "r");
    const endpointOf = (i: number) => `e${(i % 3) + 1}`;
    // Each answer checks, from another connection, that its row is there when it arrives.
    const visibleWhenAnswered = ids.map((id, i) =>
      w.writer.write(capture(id, endpointOf(i)), target(endpointOf(i))).then(async (ok) => {
        return ok && (await w.stored(id));
      }),
    );
    expect(await Promise.all(visibleWhenAnswered)).toEqual(ids.map(() => true));
    expect(w.batches).toEqual([ids]);
    expect(await w.counters()).toEqual({ e1: [100, 0], e2: [100, 0], e3: [100, 0] });
  });

  test("captures arriving while a batch commits form the next batch", async () => {
    const w = await world();
    const first = idsOf(20, "a").map((id) => w.writer.write(capture(id, "e1"), target("e1")));
    // The turn after the first batch began: it is in flight, so these wait for it.
    await new Promise((resolve) => setImmediate(resolve));
    const second = idsOf(30, "b").map((id) => w.writer.write(capture(id, "e2"), target("e2")));
    await Promise.all([...first, ...second]);
    expect(w.batches).toEqual([idsOf(20, "a"), idsOf(30, "b")]);
    expect(await w.counters()).toEqual({ e1: [20, 0], e2: [30, 0], e3: [0, 0] });
  });

  test("a failed batch answers every capture in it with the error and writes nothing", async () => {
    const w = await world();
    await w.writer.write(capture("dup", "e1"), target("e1"));
    const batch = ["x1", "dup", "x2"].map((id) =>
      w.writer.write(capture(id, "e2"), target("e2")).then(
        () => "stored",
        (error: Error) => error.message,
      ),
    );
    const outcomes = await Promise.all(batch);
    expect(outcomes.every((o) => o.includes("duplicate key"))).toBe(true);
    expect(await w.stored("x1")).toBe(false);
    expect(await w.stored("x2")).toBe(false);
    expect(await w.counters()).toEqual({ e1: [1, 0], e2: [0, 0], e3: [0, 0] });
    expect(w.batches).toEqual([["dup"]]);
    // The writer goes on with the next batch.
    expect(await w.writer.write(capture("x3", "e2"), target("e2"))).toBe(true);
  });

  test("a deleted endpoint's captures are not stored; an emptied one's older ids are stored hidden", async () => {
    const w = await world();
    await w.pg.sql`UPDATE debug_endpoints SET deleted_at = ${T0} WHERE id = 'e1'`;
    await w.pg.sql`UPDATE debug_endpoints SET cleared_through_id = 'm' WHERE id = 'e2'`;
    const answers = await Promise.all([
      w.writer.write(capture("k1", "e1"), target("e1")),
      w.writer.write(capture("a1", "e2"), target("e2")),
      w.writer.write(capture("z1", "e2"), target("e2")),
    ]);
    expect(answers).toEqual([false, true, true]);
    expect(w.batches).toEqual([["a1", "z1"]]);
    expect(await w.stored("k1")).toBe(false);
    expect(await w.counters()).toEqual({ e1: [0, 0], e2: [1, 1], e3: [0, 0] });
  });

  test("an anonymous endpoint's last places go to whichever node commits first; the rest are full", async () => {
    const w = await world();
    await w.pg
      .sql`INSERT INTO debug_endpoints (id, organization_id, name, slug, status, request_count, created_at, updated_at)
      VALUES ('anon', NULL, 'anon', 'slug-anon', 'active', 997, ${T0}, ${T0})`;
    // A second node's writer, with its own pool: its captures take places from the same count.
    const other = await openPostgres(w.url, { poolSize: 2 });
    pools.push(other);
    const nodes = [w.writer, createCapturePostgresWriter({ pg: other, onCommitted: () => {} })];
    const anonymous: CaptureTarget = { ...target("anon"), organizationId: null };
    const answers = await Promise.all(
      idsOf(10, "n").map((id, i) =>
        (nodes[i % 2] ?? w.writer).write(capture(id, "anon"), anonymous),
      ),
    );
    expect(answers.filter((a) => a === true)).toHaveLength(3);
    expect(answers.filter((a) => a === "full")).toHaveLength(7);
    const [row] = await w.observer.sql`SELECT request_count::integer AS n,
      (SELECT count(*)::integer FROM captured_requests WHERE endpoint_id = 'anon') AS rows
      FROM debug_endpoints WHERE id = 'anon'`;
    expect(row).toEqual({ n: 1000, rows: 3 });
    // An organization's endpoint has no cap.
    await w.pg.sql`UPDATE debug_endpoints SET request_count = 5000 WHERE id = 'e1'`;
    expect(await w.writer.write(capture("org", "e1"), target("e1"))).toBe(true);
  });

  test("the ports write in the batch's transaction, with the stored captures only", async () => {
    const w = await world();
    const seen: string[][] = [];
    const writer = createCapturePostgresWriter({
      pg: w.pg,
      onCommitted: () => {},
      enqueueForwards: async (tx, captures: readonly CommittedCapture[]) => {
        const [row] = await tx`SELECT count(*)::integer AS n FROM captured_requests`;
        seen.push([...captures.map((c) => c.request.id), `rows:${row?.n}`]);
        return 0;
      },
      oweActionRuns: async () => {
        throw new Error("actions refused");
      },
    });
    await w.pg.sql`UPDATE debug_endpoints SET deleted_at = ${T0} WHERE id = 'e3'`;
    const answers = await Promise.allSettled([
      writer.write(capture("p1", "e1"), target("e1")),
      writer.write(capture("p2", "e3"), target("e3")),
    ]);
    expect(seen).toEqual([["p1", "rows:1"]]);
    expect(answers.map((a) => a.status)).toEqual(["rejected", "rejected"]);
    expect(await w.stored("p1")).toBe(false);
  });

  test("close commits what is queued and refuses what comes after", async () => {
    const w = await world();
    const queued = idsOf(5, "c").map((id) => w.writer.write(capture(id, "e3"), target("e3")));
    await w.writer.close();
    expect(await Promise.all(queued)).toEqual([true, true, true, true, true]);
    expect(w.writer.write(capture("late", "e3"), target("e3"))).rejects.toThrow("closed");
    expect(await w.counters()).toMatchObject({ e3: [5, 0] });
  });
});
