import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { type Db, openDatabase } from "./db.open.ts";

const tempDir = useTempDirs("weir-tx-");
const opened: Db[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

/** A database with two "rooms'" tables, as an ingest writing its event and its delivery rows. */
function twoRooms(): Db {
  const db = openDatabase(tempDir(), "normal");
  opened.push(db);
  db.sqlite.run("CREATE TABLE events (id TEXT PRIMARY KEY)");
  db.sqlite.run("CREATE TABLE deliveries (id TEXT PRIMARY KEY, event_id TEXT NOT NULL)");
  return db;
}

/** Repos as factories over a handle (the db or a transaction's). */
const eventsRepo = (h: { sqlite: Database }) => ({
  add: (id: string) => h.sqlite.run("INSERT INTO events (id) VALUES (?)", [id]),
});
const deliveriesRepo = (h: { sqlite: Database }) => ({
  add: (id: string, eventId: string) =>
    h.sqlite.run("INSERT INTO deliveries (id, event_id) VALUES (?, ?)", [id, eventId]),
});

const count = (db: Db, table: string) =>
  (db.sqlite.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

describe("tx(fn): one unit of work across rooms", () => {
  test("commits every room's writes together and returns fn's value", () => {
    const db = twoRooms();
    const result = db.tx((tx) => {
      eventsRepo(tx).add("e1");
      deliveriesRepo(tx).add("d1", "e1");
      deliveriesRepo(tx).add("d2", "e1");
      return "ok";
    });
    expect(result).toBe("ok");
    // Seen from another connection: it is committed, not just written.
    const other = new Database(db.path, { readonly: true });
    expect(other.query("SELECT count(*) AS n FROM deliveries").get()).toEqual({ n: 2 });
    other.close();
  });

  test("a throw anywhere rolls back every room's writes", () => {
    const db = twoRooms();
    expect(() =>
      db.tx((tx) => {
        eventsRepo(tx).add("e1");
        deliveriesRepo(tx).add("d1", "e1");
        deliveriesRepo(tx).add("d1", "e1"); // duplicate key
      }),
    ).toThrow();
    expect([count(db, "events"), count(db, "deliveries")]).toEqual([0, 0]);
    expect(db.sqlite.inTransaction).toBe(false);
  });

  test("nesting is explicit: tx inside tx is refused and rolls the outer back", () => {
    const db = twoRooms();
    expect(() =>
      db.tx(() => {
        eventsRepo(db).add("e1");
        db.tx(() => eventsRepo(db).add("e2"));
      }),
    ).toThrow(/savepoint/);
    expect(count(db, "events")).toBe(0);
  });

  test("a savepoint undoes its own writes alone when the caller recovers", () => {
    const db = twoRooms();
    db.tx((tx) => {
      eventsRepo(tx).add("e1");
      try {
        tx.savepoint((inner) => {
          deliveriesRepo(inner).add("d1", "e1");
          throw new Error("this delivery is refused");
        });
      } catch {
        // recovered: the event stays, its refused delivery does not
      }
      tx.savepoint((inner) => deliveriesRepo(inner).add("d2", "e1"));
    });
    expect(db.sqlite.query("SELECT id FROM deliveries").all()).toEqual([{ id: "d2" }]);
    expect(count(db, "events")).toBe(1);
  });

  test("an async fn is refused and nothing is committed", () => {
    const db = twoRooms();
    expect(() =>
      db.tx(async (tx) => {
        eventsRepo(tx).add("e1");
      }),
    ).toThrow(/synchronous/);
    expect(count(db, "events")).toBe(0);
    expect(db.sqlite.inTransaction).toBe(false);
  });

  test("a handle kept past its transaction cannot open a savepoint", () => {
    const db = twoRooms();
    const kept = db.tx((tx) => tx);
    expect(() => kept.savepoint(() => {})).toThrow(/expired/);
  });
});

test("a transaction that need not be durable commits at synchronous=NORMAL, then FULL is back", () => {
  const db = openDatabase(tempDir(), "full");
  const level = () => db.sqlite.query("PRAGMA synchronous").get();
  const inside: unknown[] = [];
  db.tx(() => inside.push(level()), { durable: false });
  db.tx(() => inside.push(level()));
  expect(inside).toEqual([{ synchronous: 1 }, { synchronous: 2 }]);
  expect(level()).toEqual({ synchronous: 2 });
  db.close();
});

test("with normal durability a relaxed transaction leaves the level alone", () => {
  const db = openDatabase(tempDir(), "normal");
  db.tx(() => {}, { durable: false });
  expect(db.sqlite.query("PRAGMA synchronous").get()).toEqual({ synchronous: 1 });
  db.close();
});

describe("afterCommit(fn): in-memory state that follows only what was committed", () => {
  test("runs after the COMMIT, in order; never after a rollback", () => {
    const db = twoRooms();
    const heard: string[] = [];
    db.tx(() => {
      eventsRepo(db).add("e1");
      db.afterCommit(() => heard.push(`first, committed: ${db.sqlite.inTransaction === false}`));
      db.afterCommit(() => heard.push("second"));
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual(["first, committed: true", "second"]);
    expect(() =>
      db.tx(() => {
        db.afterCommit(() => heard.push("rolled back"));
        throw new Error("no");
      }),
    ).toThrow("no");
    db.tx(() => {}); // a later commit does not run what a rollback dropped
    expect(heard).toEqual(["first, committed: true", "second"]);
  });

  test("an undone savepoint drops its own callbacks only; a released one keeps them for the commit", () => {
    const db = twoRooms();
    const heard: string[] = [];
    db.tx((tx) => {
      db.afterCommit(() => heard.push("outer"));
      expect(() =>
        tx.savepoint(() => {
          db.afterCommit(() => heard.push("undone"));
          throw new Error("undo");
        }),
      ).toThrow("undo");
      tx.savepoint((inner) => {
        db.afterCommit(() => heard.push("released"));
        expect(() =>
          inner.savepoint(() => {
            db.afterCommit(() => heard.push("nested undone"));
            throw new Error("undo");
          }),
        ).toThrow("undo");
      });
      expect(heard).toEqual([]);
    });
    expect(heard).toEqual(["outer", "released"]);
  });

  test("a released savepoint's callbacks go when the transaction rolls back; outside one, fn runs at once", () => {
    const db = twoRooms();
    const heard: string[] = [];
    expect(() =>
      db.tx((tx) => {
        tx.savepoint(() => db.afterCommit(() => heard.push("released, then rolled back")));
        throw new Error("no");
      }),
    ).toThrow("no");
    expect(heard).toEqual([]);
    db.afterCommit(() => heard.push("autocommit"));
    expect(heard).toEqual(["autocommit"]);
  });
});
