import { afterEach, describe, expect, test } from "bun:test";
import { createLogger } from "../shared/logger.ts";
import { createScheduler } from "../shared/scheduler.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { createDueQueue, type DueQueue, type DueQueueOptions, type Lease } from "./db.due-queue.ts";
import { claimSql, type DueRow } from "./db.due-rows.ts";
import { type Db, openDatabase } from "./db.open.ts";

const tempDir = useTempDirs("weir-due-");
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const undo of cleanup.splice(0).reverse()) await undo();
});

const T0 = Date.UTC(2026, 0, 1);
const silent = createLogger({ level: "error", write: () => {} });

/** A table shaped like the delivery outbox: what the queue is generic over. */
function jobsDb(): Db {
  const db = openDatabase(tempDir(), "normal");
  cleanup.push(() => db.close());
  db.sqlite.run(`CREATE TABLE jobs (
    id TEXT PRIMARY KEY, destination TEXT NOT NULL, next_attempt_at INTEGER,
    locked_until INTEGER, done_by TEXT)`);
  db.sqlite.run("CREATE INDEX jobs_due ON jobs (next_attempt_at)");
  return db;
}

function addJob(db: Db, id: string, destination = "d1", due = T0) {
  db.sqlite.run("INSERT INTO jobs (id, destination, next_attempt_at) VALUES (?, ?, ?)", [
    id,
    destination,
    due,
  ]);
}

/** The handler's finishing write: NULL due, lease cleared, only while the lease is held. */
function finish(db: Db, worker: string, row: DueRow, lease: Lease): boolean {
  return (
    db.sqlite.run(
      `UPDATE jobs SET next_attempt_at = NULL, locked_until = NULL, done_by = ?
        WHERE id = ? AND locked_until = ?`,
      [worker, row.id as string, lease.until],
    ).changes === 1
  );
}

const doneBy = (db: Db) =>
  Object.fromEntries(
    (db.sqlite.query("SELECT id, done_by FROM jobs ORDER BY id").all() as DueRow[]).map((r) => [
      r.id,
      r.done_by,
    ]),
  );

type Options = Partial<DueQueueOptions> & Pick<DueQueueOptions, "run">;

/** A queue on a fake clock with its own scheduler (one per simulated process). */
function queueOn(db: Db, clock: FakeClock, options: Options, startScheduler = true): DueQueue {
  const scheduler = createScheduler(silent, clock);
  const queue = createDueQueue({
    name: "jobs",
    db,
    table: { table: "jobs", key: "destination" },
    clock,
    scheduler,
    logger: silent,
    leaseMs: 10_000,
    pollSeconds: 5,
    ...options,
  });
  if (startScheduler) scheduler.start();
  queue.start();
  cleanup.push(() => {
    scheduler.stop();
    return queue.stop();
  });
  return queue;
}

/** A handler that waits for the test: `open(id)` lets one row finish. */
function gated(db: Db, worker: string) {
  const gates = new Map<string, () => void>();
  const started: string[] = [];
  return {
    started,
    open(id: string) {
      gates.get(id)?.();
    },
    run: (row: DueRow, lease: Lease) =>
      new Promise<void>((resolve) => {
        started.push(row.id as string);
        gates.set(row.id as string, () => {
          finish(db, worker, row, lease);
          resolve();
        });
      }),
  };
}

describe("due-queue", () => {
  test("the claim is one UPDATE ... WHERE id IN (SELECT ... ORDER BY ... LIMIT ?) RETURNING", () => {
    const sql = claimSql({ table: "jobs", key: "destination", where: "done_by IS NULL" }, true);
    expect(sql.replace(/\s+/g, " ")).toBe(
      'UPDATE "jobs" SET "locked_until" = ? WHERE "id" IN (SELECT "id" FROM "jobs" ' +
        'WHERE "next_attempt_at" <= ? AND ("locked_until" IS NULL OR "locked_until" <= ?) ' +
        'AND "destination" NOT IN (SELECT value FROM json_each(?)) AND (done_by IS NULL) ' +
        'ORDER BY "next_attempt_at", "id" LIMIT ?) RETURNING *',
    );
    expect(() => claimSql({ table: "jobs; DROP TABLE x" }, false)).toThrow(/identifier/);
  });

  test("a crashed worker's rows are claimed by another only after their lease ends", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    for (const id of ["a", "b", "c"]) addJob(db, id);
    // The first worker claims everything and dies: its scheduler never runs (no extensions).
    const crashed = gated(db, "crashed");
    queueOn(db, clock, { run: crashed.run }, false);
    expect(crashed.started.sort()).toEqual(["a", "b", "c"]);

    const survivor: string[] = [];
    queueOn(db, clock, {
      run: (row, lease) => {
        survivor.push(row.id as string);
        finish(db, "survivor", row, lease);
      },
    });
    clock.advance(9_999); // polls at 5 s: every lease still runs
    expect(survivor).toEqual([]);
    clock.advance(5_001); // the poll at 15 s finds the leases ended at 10 s
    await pollUntil(() => survivor.length === 3, { what: "rows claimed again" });
    expect(doneBy(db)).toEqual({ a: "survivor", b: "survivor", c: "survivor" });
    // The crashed worker's late finish changes nothing: its lease token is stale.
    for (const id of ["a", "b", "c"]) crashed.open(id);
    expect(doneBy(db)).toEqual({ a: "survivor", b: "survivor", c: "survivor" });
  });

  test("a sole worker lets a dead process's leases go at start and runs its rows at once", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    for (const id of ["a", "b", "c"]) addJob(db, id);
    const dead = gated(db, "dead");
    queueOn(db, clock, { run: dead.run }, false);
    expect(dead.started.sort()).toEqual(["a", "b", "c"]);

    // The next process of the data dir: its leases are 10 s long, and no time passes.
    const next: string[] = [];
    queueOn(db, clock, {
      soleWorker: true,
      run: (row, lease) => {
        next.push(row.id as string);
        finish(db, "next", row, lease);
      },
    });
    await pollUntil(() => next.length === 3, { what: "the dead process's rows run again" });
    expect(doneBy(db)).toEqual({ a: "next", b: "next", c: "next" });
    for (const id of ["a", "b", "c"]) dead.open(id);
    expect(doneBy(db)).toEqual({ a: "next", b: "next", c: "next" });
  });

  test("a running row's lease is extended, so no one else claims it while it runs", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    addJob(db, "long");
    const slow = gated(db, "slow");
    queueOn(db, clock, { run: slow.run });
    const other: string[] = [];
    queueOn(db, clock, { run: (row) => void other.push(row.id as string) });
    for (let i = 0; i < 12; i++) clock.advance(2_500); // 30 s, three lease lengths
    expect(other).toEqual([]);
    slow.open("long");
    await pollUntil(() => doneBy(db).long === "slow", { what: "the long row to finish" });
  });

  test("a lease that ran out and was taken over cannot be extended", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    addJob(db, "row");
    let stale: Lease | undefined;
    const first = gated(db, "first");
    const keep = (row: DueRow, lease: Lease) => {
      stale = lease;
      return first.run(row, lease);
    };
    queueOn(db, clock, { run: keep }, false);
    const taken: string[] = [];
    queueOn(db, clock, { run: (row) => void taken.push(row.id as string) });
    clock.advance(15_000);
    expect(taken).toEqual(["row"]);
    expect(stale?.extend()).toBe(false);
    expect(stale?.held).toBe(false);
    first.open("row");
  });

  test("a row its own process still holds is never run twice when the clock passes its lease", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    addJob(db, "running");
    addJob(db, "settling");
    const runs: string[] = [];
    const still = gated(db, "w");
    const laterWrites: Array<() => void> = [];
    // No scheduler: nothing extends the leases, as when the clock leaps past them at once.
    const queue = queueOn(
      db,
      clock,
      {
        run: (row, lease) => {
          runs.push(row.id as string);
          if (row.id === "running") return still.run(row, lease);
          // The run returns at once; its finishing write commits later (a group commit).
          lease.holdUntilSettled();
          laterWrites.push(() => {
            finish(db, "w", row, lease);
            lease.settled();
          });
        },
      },
      false,
    );
    await pollUntil(() => runs.length === 2, { what: "both rows running" });
    clock.advance(15_000); // both leases ended by the clock
    queue.notify();
    const newEnd = T0 + 15_000 + 10_000;
    const leases = () =>
      db.sqlite.query("SELECT locked_until AS until FROM jobs ORDER BY id").all() as {
        until: number;
      }[];
    await pollUntil(() => leases().every((row) => row.until === newEnd), {
      what: "the claim that took both rows again",
    });
    expect(runs.sort()).toEqual(["running", "settling"]);
    // Each finishes under the new claim's end, which its lease now holds.
    for (const write of laterWrites) write();
    still.open("running");
    expect(doneBy(db)).toEqual({ running: "w", settling: "w" });
    // Once settled, the row is the table's again: due anew, it runs.
    db.sqlite.run("UPDATE jobs SET next_attempt_at = ? WHERE id = 'settling'", [clock.now()]);
    queue.notify();
    await pollUntil(() => runs.length === 3, { what: "the settled row run again when due" });
  });

  test("at most `concurrency` rows run at once; the rest run as slots free up", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    for (let i = 0; i < 7; i++) addJob(db, `r${i}`, `d${i}`);
    const worker = gated(db, "w");
    queueOn(db, clock, { run: worker.run, concurrency: 3 });
    expect(worker.started).toEqual(["r0", "r1", "r2"]);
    worker.open("r1");
    await pollUntil(() => worker.started.length === 4, { what: "a freed slot to be used" });
    expect(worker.started[3]).toBe("r3");
    for (let i = 0; i < 7; i++) {
      await pollUntil(() => worker.started.includes(`r${i}`), { what: `r${i} to start` });
      worker.open(`r${i}`);
    }
    await pollUntil(() => Object.values(doneBy(db)).every((w) => w === "w"), { what: "all done" });
  });

  test("a slow key holds only its own slots: the others' rows all run meanwhile", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    // The slow destination's rows come first in due order.
    for (let i = 0; i < 20; i++) addJob(db, `slow${String(i).padStart(2, "0")}`, "slow", T0 - 1000);
    for (let i = 0; i < 5; i++) addJob(db, `fast${i}`, "fast");
    let fastDone = 0;
    let slowRunning = 0;
    let slowMax = 0;
    const slowGates: Array<() => void> = [];
    queueOn(db, clock, {
      concurrency: 4,
      perKey: 2,
      run: (row, lease) => {
        if (row.destination === "fast") {
          finish(db, "w", row, lease);
          fastDone += 1;
          return;
        }
        slowRunning += 1;
        slowMax = Math.max(slowMax, slowRunning);
        return new Promise<void>((resolve) =>
          slowGates.push(() => {
            slowRunning -= 1;
            finish(db, "w", row, lease);
            resolve();
          }),
        );
      },
    });
    await pollUntil(() => fastDone === 5, { what: "every fast row while slow ones hang" });
    expect(slowMax).toBe(2);
    // Rows over the slow key's limit went back unleased: nothing waits on a lease in memory.
    const leased = db.sqlite
      .query("SELECT count(*) AS n FROM jobs WHERE locked_until IS NOT NULL")
      .get() as { n: number };
    expect(leased.n).toBe(2);
    // Drain the slow key: never more than two of it at once.
    for (let drained = 0; drained < 20; drained++) {
      await pollUntil(() => slowGates.length > 0, { what: "the next slow row to start" });
      slowGates.shift()?.();
    }
    expect(Object.values(doneBy(db)).every((w) => w === "w")).toBe(true);
    expect(slowMax).toBe(2);
  });

  test("a freed slot of a key at its limit is refilled from that key alone; notify() claims over every key", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    for (let i = 0; i < 6; i++) addJob(db, `a${i}`, "a", T0 - 1000 + i);
    const rows = gated(db, "w");
    const queue = queueOn(db, clock, { concurrency: 4, perKey: 2, run: rows.run });
    await pollUntil(() => rows.started.length === 2, { what: "key a at its limit" });
    // Due now, of another key, but nobody said so: the claim that found only key a's rows at
    // their limit is not repeated for each freed slot.
    addJob(db, "b0", "b");
    rows.open("a0");
    await pollUntil(() => rows.started.includes("a2"), { what: "a's freed slot refilled" });
    expect(rows.started).toEqual(["a0", "a1", "a2"]);
    queue.notify();
    await pollUntil(() => rows.started.includes("b0"), { what: "b0 after notify()" });
    expect(rows.started).toEqual(["a0", "a1", "a2", "b0"]);
    // The rest of key a, never more than two at once.
    await pollUntil(
      () => {
        for (const id of rows.started) rows.open(id);
        return Object.values(doneBy(db)).every((w) => w === "w");
      },
      { what: "every row done" },
    );
    const leased = db.sqlite.query("SELECT count(*) AS n FROM jobs WHERE locked_until IS NOT NULL");
    expect(leased.get()).toEqual({ n: 0 });
  });

  test("notify() after a commit runs a new row at once, without waiting for the poll", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    const ran: string[] = [];
    const queue = queueOn(db, clock, {
      pollSeconds: 3600,
      run: (row, lease) => {
        ran.push(row.id as string);
        finish(db, "w", row, lease);
      },
    });
    db.tx(() => addJob(db, "fresh"));
    queue.notify();
    await pollUntil(() => ran.length === 1, { what: "the notified row" });
    // Without a notice a row written behind the queue's back waits for a trigger.
    addJob(db, "silent");
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(["fresh"]);
  });

  test("a row due later runs at its due time, not at the next poll", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    addJob(db, "later", "d1", T0 + 1_500);
    const ran: Array<[string, number]> = [];
    queueOn(db, clock, {
      pollSeconds: 3600,
      run: (row, lease) => {
        ran.push([row.id as string, clock.now() - T0]);
        finish(db, "w", row, lease);
      },
    });
    clock.advance(1_499);
    expect(ran).toEqual([]);
    clock.advance(1);
    expect(ran).toEqual([["later", 1_500]]);
  });

  test("a handler that throws keeps its lease: the row runs again once the lease ends", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    addJob(db, "flaky");
    const attempts: number[] = [];
    queueOn(db, clock, {
      run: (row, lease) => {
        attempts.push(clock.now() - T0);
        if (attempts.length === 1) throw new Error("handler broke");
        finish(db, "w", row, lease);
      },
    });
    await pollUntil(() => attempts.length === 1, { what: "first attempt" });
    clock.advance(5_000);
    expect(attempts).toEqual([0]);
    clock.advance(5_000); // the lease ended at 10 s; this poll claims it again
    await pollUntil(() => attempts.length === 2, { what: "second attempt" });
    expect(attempts).toEqual([0, 10_000]);
    expect(doneBy(db).flaky).toBe("w");
  });

  test("a handler starts after the claim's COMMIT, so it may open its own transaction", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    for (const id of ["x", "y"]) addJob(db, id);
    queueOn(db, clock, { run: (row, lease) => void db.tx(() => finish(db, "tx", row, lease)) });
    expect(doneBy(db)).toEqual({ x: "tx", y: "tx" });
  });

  test("stop() claims nothing more and waits for the running rows", async () => {
    const db = jobsDb();
    const clock = createFakeClock(T0);
    addJob(db, "running");
    const worker = gated(db, "w");
    const queue = queueOn(db, clock, { run: worker.run });
    const stopped = queue.stop();
    addJob(db, "after");
    queue.notify();
    worker.open("running");
    await stopped;
    expect(queue.running()).toBe(0);
    expect(worker.started).toEqual(["running"]);
  });
});
