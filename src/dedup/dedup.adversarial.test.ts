import { afterEach, describe, expect, test } from "bun:test";
import { createCommitTurn } from "../db/db.commit-turn.ts";
import { createGroupCommit } from "../db/db.group-commit.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { RequestView } from "../shared/field-path.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createDedupKeys } from "./dedup.keys.ts";
import type { DedupConfig } from "./dedup.model.ts";
import { dedupRepo } from "./dedup.repo.ts";
import {
  beginDedupBatch,
  type DedupBatch,
  type DedupDeps,
  forgetSource,
  prepareDedup,
} from "./dedup.service.ts";

// A sender racing and retrying duplicates, against the batch and the turn they commit in.
const config: DedupConfig = { enabled: true, body_path: "body.id", ttl_seconds: 60 };
const view = (body: unknown): RequestView => ({ body, headers: {}, query: {}, path: {} });

let db: TestDb | null = null;
afterEach(() => {
  db?.destroy();
  db = null;
});

function setup() {
  db = createTestDb();
  const testDb = db;
  const clock = createFakeClock();
  const deps: DedupDeps = {
    repo: dedupRepo,
    keys: createDedupKeys({ repo: dedupRepo, maxKeys: 1000 }),
    clock,
  };
  const ticket = (sourceId: string, body: unknown, cfg: DedupConfig = config) =>
    prepareDedup({ sourceId, config: cfg, request: view(body), rawBody: "" });
  /** One batch's checks inside `tx` (a group commit's or its own): true for each duplicate. */
  const checkAll = (tx: TxHandle, items: [string, unknown][], cfg?: DedupConfig) => {
    const dedup = beginDedupBatch(tx, deps);
    const out = items.map(([sourceId, body]) => dedup.check(ticket(sourceId, body, cfg)));
    dedup.finish();
    return out;
  };
  /** One batch in its own transaction. */
  const batch = (items: [string, unknown][], cfg?: DedupConfig) =>
    testDb.tx((tx) => checkAll(tx, items, cfg));
  return { db: testDb, clock, deps, ticket, checkAll, batch };
}

describe("batches that commit inside a shared turn transaction", () => {
  test("an ingest share that fails after claiming, in a turn that commits: a retry is accepted", async () => {
    const { db, checkAll, batch } = setup();
    const turn = createCommitTurn(db.tx);
    let failNext = true;
    const group = createGroupCommit<unknown, boolean>({
      tx: db.tx,
      turn,
      commit(items, tx) {
        const out = checkAll(
          tx,
          items.map((body) => ["src", body]),
        );
        if (failNext) {
          failNext = false;
          throw new Error("the event insert failed");
        }
        return out;
      },
    });
    // Another share of the same turn writes and commits.
    const other: { wrote: number } = { wrote: 0 };
    turn.enlist({
      write(tx: TxHandle) {
        tx.sqlite.run("CREATE TABLE IF NOT EXISTS other_share (n INTEGER)");
        tx.sqlite.run("INSERT INTO other_share VALUES (1)");
        other.wrote += 1;
        return () => {};
      },
      fail() {},
    });
    const failed = await Promise.allSettled([group.submit({ id: 1 }), group.submit({ id: 2 })]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(other.wrote).toBe(1);
    expect(db.sqlite.query("SELECT count(*) AS n FROM other_share").get()).toEqual({ n: 1 });
    // The sender retries: both are new, then duplicates.
    expect(await Promise.all([group.submit({ id: 1 }), group.submit({ id: 2 })])).toEqual([
      false,
      false,
    ]);
    expect(
      batch([
        ["src", { id: 1 }],
        ["src", { id: 2 }],
      ]),
    ).toEqual([true, true]);
  });

  test("two identical requests in one turn: one stored, the duplicate answered after the commit", async () => {
    const { db, checkAll } = setup();
    const turn = createCommitTurn(db.tx);
    const committed: number[] = [];
    const group = createGroupCommit<unknown, boolean>({
      tx: db.tx,
      turn,
      commit: (items, tx) =>
        checkAll(
          tx,
          items.map((body) => ["src", body]),
        ),
      onCommitted: () => committed.push(rows(db)),
    });
    const answers: string[] = [];
    const submit = (label: string) =>
      group.submit({ id: 9 }).then((duplicate) => {
        // What another connection sees at the moment of the answer: the key is on disk.
        answers.push(`${label}:${duplicate}:${rows(db)}`);
      });
    await Promise.all([submit("a"), submit("b")]);
    expect(committed).toEqual([1]);
    expect(answers).toEqual(["a:false:1", "b:true:1"]);
  });

  test("an ingest share released, then the turn's COMMIT fails: told so, its keys go unread", async () => {
    const { db, clock, ticket } = setup();
    let reads = 0;
    const repo = {
      ...dedupRepo,
      keyRow: (...args: Parameters<typeof dedupRepo.keyRow>) => {
        reads += 1;
        return dedupRepo.keyRow(...args);
      },
    };
    const keys = createDedupKeys({ repo, maxKeys: 1000 });
    const deps: DedupDeps = { repo, keys, clock };
    // A deferred foreign key is checked at COMMIT: a dangling row makes the COMMIT itself fail.
    db.sqlite.run("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
    db.sqlite.run(
      "CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)",
    );
    const turn = createCommitTurn(db.tx);
    let open: DedupBatch | null = null;
    const group = createGroupCommit<unknown, boolean>({
      tx: db.tx,
      turn,
      commit(items, tx) {
        open = beginDedupBatch(tx, deps);
        const dedup = open;
        const out = items.map((body) => dedup.check(ticket("src", body)));
        dedup.finish();
        return out;
      },
      onCommitted: () => open?.committed(),
      onRolledBack: () => open?.rolledBack(),
    });
    let dangling = true;
    const laterShare = {
      write(tx: TxHandle) {
        if (dangling) tx.sqlite.run("INSERT INTO child VALUES (42)");
        dangling = false;
        return () => {};
      },
      fail() {},
    };
    const submit = (body: unknown) => {
      const answer = group.submit(body);
      turn.enlist(laterShare); // after the ingest share: its savepoint is released first
      return answer;
    };
    const failed = await Promise.allSettled([submit({ id: 1 }), submit({ id: 2 })]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(String((failed[0] as PromiseRejectedResult).reason)).toContain("FOREIGN KEY");
    // The rollback was told: the entries went at once, before any next use.
    expect(keys.figures().liveKeys).toBe(0);
    expect(rows(db)).toBe(0);
    // The retry is new, then a duplicate; a reported batch of fresh keys reads no row.
    reads = 0;
    expect(await Promise.all([submit({ id: 1 }), submit({ id: 2 })])).toEqual([false, false]);
    expect(reads).toBe(0);
    expect(keys.figures().liveKeys).toBe(2);
    expect(await submit({ id: 1 })).toBe(true);
  });
});

describe("TTL, config changes and sources", () => {
  test("TTL is exact to the millisecond with the fake clock, and a duplicate does not extend it", () => {
    const { clock, batch } = setup();
    expect(batch([["src", { id: 1 }]])).toEqual([false]);
    clock.advance(59_999);
    expect(batch([["src", { id: 1 }]])).toEqual([true]);
    clock.advance(1);
    expect(batch([["src", { id: 1 }]])).toEqual([false]);
    clock.advance(59_999);
    expect(batch([["src", { id: 1 }]])).toEqual([true]);
  });

  test("a changed strategy makes new keys; switching off and on keeps the old ones until their TTL", () => {
    const { clock, batch } = setup();
    expect(batch([["src", { id: 1, kind: "a" }]])).toEqual([false]);
    const byKind: DedupConfig = { enabled: true, body_path: "body.kind", ttl_seconds: 60 };
    expect(batch([["src", { id: 1, kind: "a" }]], byKind)).toEqual([false]);
    expect(batch([["src", { id: 2, kind: "a" }]], byKind)).toEqual([true]);
    expect(batch([["src", { id: 1 }]], { ...config, enabled: false })).toEqual([false]);
    expect(batch([["src", { id: 1 }]])).toEqual([true]);
    clock.advance(60_000);
    expect(batch([["src", { id: 1 }]])).toEqual([false]);
  });

  test("identical payloads on two sources (two organizations) never meet", () => {
    const { batch } = setup();
    expect(
      batch([
        ["org_a_source", { id: 1 }],
        ["org_b_source", { id: 1 }],
        ["org_a_source", { id: 1 }],
        ["org_b_source", { id: 1 }],
      ]),
    ).toEqual([false, false, true, true]);
  });

  test("a source deletion that rolls back keeps the source's keys working", () => {
    const { db, deps, batch } = setup();
    expect(batch([["src", { id: 1 }]])).toEqual([false]);
    expect(() =>
      db.tx((tx) => {
        forgetSource(tx, "src", deps);
        throw new Error("the source's deletion failed");
      }),
    ).toThrow("the source's deletion failed");
    expect(rows(db)).toBe(1);
    expect(batch([["src", { id: 1 }]])).toEqual([true]);
  });

  test("a deleted source's keys are gone; a retry after a restart is not a duplicate", () => {
    const { db, deps, batch } = setup();
    batch([
      ["src", { id: 1 }],
      ["kept", { id: 1 }],
    ]);
    db.tx((tx) => forgetSource(tx, "src", deps));
    expect(rows(db)).toBe(1);
    const restarted = createDedupKeys({ repo: dedupRepo, maxKeys: 1000 });
    const after = db.tx((tx) => {
      const dedup = beginDedupBatch(tx, { ...deps, keys: restarted });
      return [
        dedup.check(
          prepareDedup({ sourceId: "src", config, request: view({ id: 1 }), rawBody: "" }),
        ),
        dedup.check(
          prepareDedup({ sourceId: "kept", config, request: view({ id: 1 }), rawBody: "" }),
        ),
      ];
    });
    expect(after).toEqual([false, true]);
  });
});

function rows(db: TestDb): number {
  return (db.sqlite.query("SELECT count(*) AS n FROM dedup_key_log").get() as { n: number }).n;
}
