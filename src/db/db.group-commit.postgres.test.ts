import { afterAll, beforeAll, expect, test } from "bun:test";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { openMigratedPgDatabase } from "../test-utils/postgres-migrated.ts";
import { type BatchOutcome, createPostgresGroupCommit } from "./db.group-commit.postgres.ts";
import type { PostgresDb, PostgresTx } from "./db.postgres-handle.ts";

const databases = usePgDatabases();
let pg: PostgresDb;

beforeAll(async () => {
  pg = await openMigratedPgDatabase(databases);
  await pg.sql`CREATE TABLE notes (id text PRIMARY KEY)`;
});
afterAll(async () => {
  await pg?.close();
});

const insert = async (tx: PostgresTx, id: string) => {
  await tx`INSERT INTO notes (id) VALUES (${id})`;
  return id;
};
const stored = async (prefix: string) =>
  (await pg.sql`SELECT id FROM notes WHERE id LIKE ${`${prefix}%`} ORDER BY id`).map(
    (row: { id: string }) => row.id,
  );

test("a batch whose transaction fails as a whole is written again one item per transaction, so no item fails for another's sake", async () => {
  let batches = 0;
  const alone: string[] = [];
  const group = createPostgresGroupCommit<string, string>({
    sql: pg.sql,
    maxBatch: 100,
    async commit(tx, batch) {
      batches += 1;
      const outcomes: BatchOutcome<string>[] = [];
      for (const id of batch) outcomes.push({ result: await insert(tx, id) });
      // As a deadlock with another node's batch would: the whole transaction is refused.
      throw new Error("deadlock detected");
    },
    alone: (id) => {
      alone.push(id);
      return pg.sql.begin((tx) => insert(tx, id));
    },
  });
  const ids = ["b-1", "b-2", "b-3"];
  expect(await Promise.all(ids.map((id) => group.submit(id)))).toEqual(ids);
  expect(batches).toBe(1);
  expect(alone.sort()).toEqual(ids);
  expect(await stored("b-")).toEqual(ids);
  await group.close();
});

test("an item the batch undid is tried again alone and refused only if that fails too; what arrives during a commit is the next batch", async () => {
  const sizes: number[] = [];
  const alone: string[] = [];
  const group = createPostgresGroupCommit<string, string>({
    sql: pg.sql,
    maxBatch: 100,
    async commit(tx, batch) {
      sizes.push(batch.length);
      const outcomes: BatchOutcome<string>[] = [];
      for (const id of batch) {
        try {
          outcomes.push({ result: await tx.savepoint((inner) => insert(inner, id)) });
        } catch (error) {
          outcomes.push({ failed: error });
        }
      }
      return outcomes;
    },
    alone: (id) => {
      alone.push(id);
      return pg.sql.begin((tx) => insert(tx, id));
    },
  });
  const first = Promise.all(["s-1", "s-2"].map((id) => group.submit(id)));
  // Submitted in a later turn, while the first batch commits: one more batch, the duplicate
  // id undone by its own savepoint, then refused again alone.
  await new Promise((resolve) => setImmediate(resolve));
  const second = ["s-3", "s-1", "s-4"].map((id) =>
    group.submit(id).then(
      (ok) => ok,
      () => "refused",
    ),
  );
  expect(await first).toEqual(["s-1", "s-2"]);
  expect(await Promise.all(second)).toEqual(["s-3", "refused", "s-4"]);
  expect(sizes).toEqual([2, 3]);
  expect(alone).toEqual(["s-1"]);
  expect(await stored("s-")).toEqual(["s-1", "s-2", "s-3", "s-4"]);
  await group.close();
});

test("a batch is written in the order asked for, and answered in the order submitted", async () => {
  const written: string[] = [];
  const group = createPostgresGroupCommit<string, string>({
    sql: pg.sql,
    maxBatch: 100,
    orderBy: (id) => id,
    async commit(tx, batch) {
      const outcomes: BatchOutcome<string>[] = [];
      for (const id of batch) {
        written.push(id);
        outcomes.push({ result: await insert(tx, id) });
      }
      return outcomes;
    },
    alone: () => Promise.reject(new Error("not expected")),
  });
  const ids = ["o-3", "o-1", "o-2"];
  expect(await Promise.all(ids.map((id) => group.submit(id)))).toEqual(ids);
  expect(written).toEqual(["o-1", "o-2", "o-3"]);
  await group.close();
});
