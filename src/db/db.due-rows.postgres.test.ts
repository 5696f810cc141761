import { afterAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { createPostgresDueRows, type PostgresDueTable } from "./db.due-rows.postgres.ts";
import type { DueStore } from "./db.due-rows.store.ts";
import { runPgMigrations } from "./db.migrate.pg.ts";
import { PG_MIGRATIONS } from "./db.migrations.pg.ts";

const databases = usePgDatabases();
const clients: SQL[] = [];
afterAll(async () => {
  for (const sql of clients.splice(0)) await sql.close();
});

let database: Promise<string> | undefined;
/** The file's one database (each test makes tables of its own in it). */
function databaseUrl(): Promise<string> {
  database ??= databases.create().then((db) => db.url);
  return database;
}
function connect(url: string): SQL {
  const sql = new SQL(url, { max: 4 });
  clients.push(sql);
  return sql;
}

let tables = 0;
/** A fresh due table (with a claimer column), and a way to open clients on it (one per "node"). */
async function jobsTable() {
  const url = await databaseUrl();
  const admin = connect(url);
  const name = `jobs_${++tables}`;
  const spec: PostgresDueTable = {
    table: name,
    key: "destination_key",
    group: "organization_id",
    claimer: "claimed_by",
  };
  await admin.unsafe(`CREATE TABLE ${name} (
    id text PRIMARY KEY, destination_key text NOT NULL, organization_id text,
    next_attempt_at bigint, locked_until bigint, claimed_by text)`);
  await admin.unsafe(`CREATE INDEX ${name}_due_idx ON ${name} (next_attempt_at, id)`);
  /** Adds `n` rows due `dueInMs` from the server's now (negative: already due). */
  const add = async (
    n: number,
    fields: { key?: string; group?: string | null; dueInMs?: number },
  ) => {
    await admin.unsafe(
      `INSERT INTO ${name} (id, destination_key, organization_id, next_attempt_at)
        SELECT $1 || '-' || lpad(i::text, 5, '0'), $1, $2,
               (extract(epoch FROM clock_timestamp()) * 1000)::bigint + $3
          FROM generate_series(1, $4::int) i`,
      [
        fields.key ?? "d",
        fields.group === undefined ? "org" : fields.group,
        fields.dueInMs ?? -1000,
        n,
      ],
    );
  };
  const node = (node: string, leaseMs = 60_000, sql = connect(url)) =>
    createPostgresDueRows({ sql, table: spec, node, leaseMs });
  const unleased = async () => {
    const [row] = await admin.unsafe(
      `SELECT count(*)::int AS n FROM ${name} WHERE locked_until IS NULL`,
    );
    return row.n as number;
  };
  return { add, node, unleased, connect: () => connect(url) };
}

const ids = (rows: Record<string, unknown>[]) => rows.map((row) => row.id as string).sort();

describe("PostgreSQL due claims shared by several nodes", () => {
  test("four nodes claiming at once take every row exactly once", async () => {
    const { add, node, unleased } = await jobsTable();
    await add(400, { key: "a" });
    await add(400, { key: "b" });
    const nodes = ["n1", "n2", "n3", "n4"].map((name) => node(name));
    const claimedBy = new Map<string, string[]>();
    const drain = async (store: DueStore) => {
      for (;;) {
        const rows = await store.claim(7);
        if (rows.length === 0) return;
        for (const row of rows) {
          expect(row.claimed_by).toBe(store.node);
          claimedBy.set(row.id as string, [...(claimedBy.get(row.id as string) ?? []), store.node]);
        }
      }
    };
    await Promise.all(nodes.map(drain));
    expect(claimedBy.size).toBe(800);
    expect([...claimedBy.values()].filter((by) => by.length > 1)).toEqual([]);
    // The work was shared, not done by whichever node came first.
    const perNode = new Set([...claimedBy.values()].map(([by]) => by));
    expect(perNode.size).toBeGreaterThan(1);
    expect(await unleased()).toBe(0);
  });

  test("a dead node's rows are claimed again once its lease lapses on the server's clock", async () => {
    const { add, node, connect } = await jobsTable();
    await add(3, {});
    const deadSql = connect();
    const dead = node("dead", 400, deadSql);
    const held = await dead.claim(10);
    expect(held).toHaveLength(3);
    await deadSql.close(); // the node is gone without giving anything back
    const survivor = node("survivor");
    // While the lease runs, nothing is claimable.
    expect(await survivor.claim(10)).toEqual([]);
    const taken = await pollUntil(
      async () => {
        const rows = await survivor.claim(10);
        return rows.length > 0 && rows;
      },
      { what: "the lapsed rows to be claimed", timeoutMs: 5000, intervalMs: 50 },
    );
    expect(ids(taken)).toEqual(ids(held));
    expect(taken.every((row) => row.claimed_by === "survivor")).toBe(true);
    // The dead node's lease token no longer works: its late finish cannot overwrite the row.
    const revenant = node("dead");
    const row = held[0] as Record<string, unknown>;
    expect(await revenant.extend(row.id as string, row.locked_until as number)).toBeNull();
    expect(await revenant.release(row.id as string, row.locked_until as number)).toBe(false);
  });

  test("a lease extended in time keeps the row from other nodes; a release hands it over", async () => {
    const { add, node } = await jobsTable();
    await add(1, {});
    const owner = node("owner", 300);
    const other = node("other");
    const [row] = await owner.claim(1);
    let until = row?.locked_until as number;
    const id = row?.id as string;
    const started = performance.now();
    while (performance.now() - started < 1000) {
      const next = await owner.extend(id, until);
      expect(next).not.toBeNull();
      until = next as number;
      expect(await other.claim(1)).toEqual([]);
      await Bun.sleep(50);
    }
    // Another node's name cannot move or give back the lease.
    expect(await other.extend(id, until)).toBeNull();
    expect(await other.release(id, until)).toBe(false);
    expect(await owner.release(id, until)).toBe(true);
    expect(ids(await other.claim(1))).toEqual([id]);
  });

  test("releaseMine gives back only this node's rows, due as they were", async () => {
    const { add, node } = await jobsTable();
    await add(4, {});
    const leaving = node("leaving");
    const staying = node("staying");
    expect(await leaving.claim(2)).toHaveLength(2);
    expect(await staying.claim(2)).toHaveLength(2);
    expect(await leaving.releaseMine()).toBe(2);
    expect(await staying.claim(10)).toHaveLength(2);
  });

  test("fairness filters: keys and groups at their limit are skipped; by key and by group", async () => {
    const { add, node } = await jobsTable();
    await add(3, { key: "slow", group: "org-a" });
    await add(3, { key: "fast", group: "org-a" });
    await add(2, { key: "lone", group: null });
    const store = node("n");
    const skipping = await store.claim(100, ["slow"], ["org-x"]);
    expect(ids(skipping)).toEqual([
      "fast-00001",
      "fast-00002",
      "fast-00003",
      "lone-00001",
      "lone-00002",
    ]);
    expect(await store.claim(100, [], ["org-a", null])).toEqual([]);
    expect(ids(await store.claimKey("slow", 2))).toEqual(["slow-00001", "slow-00002"]);
    expect(ids(await store.claimGroup("org-a", 10, ["slow"]))).toEqual([]);
    expect(ids(await store.claimGroup("org-a", 10))).toEqual(["slow-00003"]);
  });

  test("a null group is a group of its own; rows due later wait, and nextDue names them", async () => {
    const { add, node } = await jobsTable();
    await add(2, { key: "x", group: null });
    await add(1, { key: "later", dueInMs: 60_000 });
    const store = node("n");
    expect(await store.anyDue()).toBe(true);
    expect(ids(await store.claimGroup(null, 10))).toEqual(["x-00001", "x-00002"]);
    expect(await store.anyDue()).toBe(false);
    expect(await store.claim(10)).toEqual([]);
    const next = await store.nextDue();
    expect(next).toBeGreaterThan(Date.now() + 50_000);
  });

  test("the outbox's own table: nodes share it with the lease's end as the only token", async () => {
    const url = await databaseUrl();
    const sql = connect(url);
    const other = connect(url);
    await runPgMigrations(sql, PG_MIGRATIONS);
    await sql`INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key,
        webhook_id, status, max_retries, next_attempt_at, created_at, updated_at)
      SELECT 'dlv-' || lpad(i::text, 4, '0'), 'webhook', 'org-' || (i % 3), 'evt-' || i,
             'dest-' || (i % 5), 'wh', 'pending', 5, 0, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'
        FROM generate_series(1, 300) i`;
    const table = { table: "deliveries", key: "destination_key", group: "organization_id" };
    const a = createPostgresDueRows({ sql, table, node: "a", leaseMs: 60_000 });
    const b = createPostgresDueRows({ sql: other, table, node: "b", leaseMs: 60_000 });
    const seen: string[] = [];
    const drain = async (store: DueStore) => {
      for (
        let rows = await store.claim(9);
        rows.length > 0;
        rows = await store.claim(9, ["dest-4"])
      ) {
        seen.push(...rows.map((row) => row.id as string));
      }
    };
    await Promise.all([drain(a), drain(b)]);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(240);
    const [row] = await a.claimKey("dest-4", 1);
    const held = row?.locked_until as number;
    expect(typeof held).toBe("number");
    expect(await b.extend(row?.id as string, held - 1)).toBeNull();
    const extended = (await b.extend(row?.id as string, held)) as number;
    expect(extended).toBeGreaterThan(held);
    // Without a claimer column nothing says whose a lease is: a stop gives none back.
    expect(await a.releaseMine()).toBe(0);
    expect(await a.release(row?.id as string, extended)).toBe(true);
  });
});
