import { afterEach, expect, test } from "bun:test";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { createCommitTurn } from "./db.commit-turn.ts";
import { createGroupCommit } from "./db.group-commit.ts";
import { type Db, openDatabase } from "./db.open.ts";
import type { TxHandle } from "./db.tx.ts";

const tempDir = useTempDirs("weir-turn-");
const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

/** A database whose transactions are counted, with two group commits sharing its turn. */
function world() {
  const db = openDatabase(tempDir(), "normal");
  opened.push(db);
  db.sqlite.run("CREATE TABLE events (id TEXT PRIMARY KEY)");
  db.sqlite.run("CREATE TABLE attempts (id TEXT PRIMARY KEY)");
  let transactions = 0;
  const tx = <R>(fn: (handle: TxHandle) => R): R => {
    transactions += 1;
    return db.tx(fn);
  };
  const turn = createCommitTurn(tx);
  const writer = (table: string) =>
    createGroupCommit<string, string>({
      tx,
      turn,
      commit(batch, handle) {
        for (const id of batch) {
          if (id === "boom") throw new Error("this share fails");
          handle.sqlite.run(`INSERT INTO ${table} (id) VALUES (?)`, [id]);
        }
        return batch.map((id) => `${table}:${id}`);
      },
    });
  const ids = (table: string) =>
    db.sqlite
      .query<{ id: string }, []>(`SELECT id FROM ${table} ORDER BY id`)
      .all()
      .map((r) => r.id);
  return {
    db,
    turn,
    events: writer("events"),
    attempts: writer("attempts"),
    ids,
    count: () => transactions,
  };
}

test("two group commits of one turn share ONE transaction, each answered after it", async () => {
  const w = world();
  const answers = await Promise.all([
    w.events.submit("e1"),
    w.attempts.submit("a1"),
    w.events.submit("e2"),
    w.attempts.submit("a2"),
  ]);
  expect(answers).toEqual(["events:e1", "attempts:a1", "events:e2", "attempts:a2"]);
  expect(w.count()).toBe(1);
  expect([w.ids("events"), w.ids("attempts")]).toEqual([
    ["e1", "e2"],
    ["a1", "a2"],
  ]);
  // The next turn is a transaction of its own.
  await w.events.submit("e3");
  expect(w.count()).toBe(2);
});

test("a share that throws is undone alone; the other commits", async () => {
  const w = world();
  const failed = w.events.submit("boom");
  const kept = w.attempts.submit("a1");
  await expect(failed).rejects.toThrow("this share fails");
  expect(await kept).toBe("attempts:a1");
  expect([w.ids("events"), w.ids("attempts")]).toEqual([[], ["a1"]]);
  // The failed share's group commit carries on with the next turn.
  expect(await w.events.submit("e1")).toBe("events:e1");
});

test("a failed COMMIT fails every share of the turn, and nothing is stored", async () => {
  const w = world();
  // A deferred foreign-key violation makes the COMMIT itself fail, after both shares wrote.
  w.db.sqlite.run("PRAGMA foreign_keys = ON");
  w.db.sqlite.run("CREATE TABLE parent (id TEXT PRIMARY KEY)");
  w.db.sqlite.run(
    "CREATE TABLE child (id TEXT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)",
  );
  const orphan = createGroupCommit<string, string>({
    tx: w.db.tx,
    turn: w.turn,
    commit(batch, handle) {
      for (const id of batch) handle.sqlite.run("INSERT INTO child (id) VALUES (?)", [id]);
      return batch;
    },
  });
  const results = await Promise.allSettled([w.events.submit("e1"), orphan.submit("nobody")]);
  expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  expect(w.ids("events")).toEqual([]);
});
