import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { createGroupCommit } from "./db.group-commit.ts";
import { type Db, openDatabase } from "./db.open.ts";
import type { TxHandle } from "./db.tx.ts";

const tempDir = useTempDirs("weir-group-");
const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

function database(): Db {
  const db = openDatabase(tempDir(), "normal");
  opened.push(db);
  db.sqlite.run("CREATE TABLE events (id TEXT PRIMARY KEY)");
  db.sqlite.run("CREATE TABLE outbox (event_id TEXT NOT NULL)");
  return db;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("group commit over a real database", () => {
  test("one turn is one transaction; every room's rows commit together, answered after COMMIT", async () => {
    const db = database();
    const reader = new Database(db.path, { readonly: true });
    const transactions: string[][] = [];
    const group = createGroupCommit<string, boolean>({
      tx: db.tx,
      commit(batch, tx) {
        transactions.push([...batch]);
        for (const id of batch) {
          tx.sqlite.run("INSERT INTO events (id) VALUES (?)", [id]);
          tx.sqlite.run("INSERT INTO outbox (event_id) VALUES (?)", [id]);
        }
        return batch.map(() => true);
      },
    });
    const answers = ["a", "b", "c"].map(async (id) => {
      await group.submit(id);
      // Answered only once another connection can read it: committed, not just written.
      return reader.query("SELECT count(*) AS n FROM outbox WHERE event_id = ?").get(id);
    });
    expect(await Promise.all(answers)).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }]);
    expect(transactions).toEqual([["a", "b", "c"]]);
    reader.close();
  });

  test("a failed batch rolls back and rejects every item of it, and only those", async () => {
    const db = database();
    const group = createGroupCommit<string, boolean>({
      tx: db.tx,
      maxBatch: 2,
      commit(batch, tx) {
        for (const id of batch) {
          tx.sqlite.run("INSERT INTO outbox (event_id) VALUES (?)", [id]);
          tx.sqlite.run("INSERT INTO events (id) VALUES (?)", [id]);
        }
        return batch.map(() => true);
      },
    });
    // "x" twice in the first batch: its second insert breaks the primary key.
    const results = await Promise.allSettled(["x", "x", "y"].map((id) => group.submit(id)));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "fulfilled"]);
    const rows = (t: string) => db.sqlite.query(`SELECT * FROM ${t}`).all();
    expect(rows("events")).toEqual([{ id: "y" }]);
    expect(rows("outbox")).toEqual([{ event_id: "y" }]);
  });

  test("onCommitted sees each batch once with its results, after commit and before the answers", async () => {
    const db = database();
    const seen: string[] = [];
    const group = createGroupCommit<string, number>({
      tx: db.tx,
      commit: (batch) => batch.map((id) => id.length),
      onCommitted(batch, results) {
        expect(db.sqlite.inTransaction).toBe(false);
        seen.push(`${batch.join(",")}=${results.join(",")}`);
      },
    });
    const first = group.submit("a");
    const second = group.submit("bb");
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(seen).toEqual(["a,bb=1,2"]);
  });

  test("with an asynchronous transaction one batch is in flight; what arrives meanwhile is the next", async () => {
    const transactions: string[][] = [];
    const gates: Array<() => void> = [];
    const handle = {} as TxHandle;
    const group = createGroupCommit<string, boolean>({
      tx: (fn) => new Promise((resolve) => gates.push(() => resolve(fn(handle)))),
      commit(batch) {
        transactions.push([...batch]);
        return batch.map(() => true);
      },
    });
    const first = group.submit("a");
    await nextTurn();
    const later = ["b", "c"].map((id) => group.submit(id));
    await nextTurn();
    await nextTurn();
    expect(gates.length).toBe(1);
    gates.shift()?.();
    await first;
    await nextTurn();
    gates.shift()?.();
    expect(await Promise.all(later)).toEqual([true, true]);
    expect(transactions).toEqual([["a"], ["b", "c"]]);
  });
});
