import { afterEach, describe, expect, test } from "bun:test";
import { createGroupCommit } from "../db/db.group-commit.ts";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { type Db, openDatabase } from "../db/db.open.ts";
import { AppError } from "../shared/errors.ts";
import type { RequestView } from "../shared/field-path.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { createDedupKeys } from "./dedup.keys.ts";
import type { DedupConfig } from "./dedup.model.ts";
import { dedupRepo } from "./dedup.repo.ts";
import {
  beginDedupBatch,
  checkAndRecord,
  type DedupDeps,
  forgetSource,
  parseStatsPeriod,
  prepareDedup,
  sourceStats,
  sweepExpiredKeys,
} from "./dedup.service.ts";
import { createDedupSqliteStore } from "./dedup.sqlite.ts";

const HOUR = 3_600_000;
const config: DedupConfig = { enabled: true, body_path: "body.id", ttl_seconds: 60 };
const request = (body: unknown): RequestView => ({ body, headers: {}, query: {}, path: {} });

let db: TestDb | null = null;
afterEach(() => {
  db?.destroy();
  db = null;
});

/** The deps of one server process over the database. */
const depsOf = (clock: DedupDeps["clock"], maxKeys = 10_000): DedupDeps => ({
  repo: dedupRepo,
  keys: createDedupKeys({ repo: dedupRepo, maxKeys }),
  clock,
});

/** The counters as the room reads them over SQLite. */
const countersOf = (handle: Db, deps: DedupDeps) =>
  createDedupSqliteStore(handle, deps.keys, () => deps.clock.now());

function setup(maxKeys?: number) {
  db = createTestDb();
  const clock = createFakeClock();
  const deps = depsOf(clock, maxKeys);
  const testDb = db;
  const ingest = (sourceId: string, body: unknown, cfg: DedupConfig | null = config) => {
    const ticket = prepareDedup({ sourceId, config: cfg, request: request(body), rawBody: "" });
    return testDb.tx((tx) => checkAndRecord(tx, ticket, deps)).duplicate;
  };
  return { db: testDb, clock, deps, ingest };
}

describe("checkAndRecord", () => {
  test("the second identical request within the TTL is a duplicate, per source", () => {
    const { ingest } = setup();
    expect(ingest("src_a", { id: 1 })).toBe(false);
    expect(ingest("src_a", { id: 1 })).toBe(true);
    expect(ingest("src_a", { id: "1" })).toBe(false);
    expect(ingest("src_b", { id: 1 })).toBe(false);
  });

  test("a key whose TTL has passed is fresh again, and a duplicate does not extend it", () => {
    const { ingest, clock } = setup();
    expect(ingest("src", { id: 7 })).toBe(false);
    clock.advance(59_999);
    expect(ingest("src", { id: 7 })).toBe(true);
    clock.advance(1);
    expect(ingest("src", { id: 7 })).toBe(false);
    clock.advance(30_000);
    expect(ingest("src", { id: 7 })).toBe(true);
  });

  test("enabled false (or no config) never rejects but still counts every ingest", async () => {
    const { ingest, db, deps } = setup();
    const off = { ...config, enabled: false };
    for (let i = 0; i < 3; i++) expect(ingest("src", { id: 1 }, off)).toBe(false);
    expect(ingest("src", { id: 1 }, null)).toBe(false);
    expect(await sourceStats(countersOf(db, deps), "src", "all_time", deps)).toEqual({
      total_requests: 4,
      duplicates_rejected: 0,
      duplicate_rate: 0,
      rejected_unverified: 0,
      period: "all_time",
    });
  });

  test("two identical requests in ONE group commit: exactly one is fresh", async () => {
    const { db, deps } = setup();
    const commits: number[] = [];
    const group = createGroupCommit({
      tx: db.tx,
      commit: (batch: readonly { body: unknown; sourceId: string }[], tx) => {
        commits.push(batch.length);
        const dedup = beginDedupBatch(tx, deps);
        const duplicates = batch.map((item) => {
          const ticket = prepareDedup({
            sourceId: item.sourceId,
            config,
            request: request(item.body),
            rawBody: "",
          });
          return dedup.check(ticket);
        });
        dedup.finish();
        return duplicates;
      },
    });
    const results = await Promise.all([
      group.submit({ body: { id: 42 }, sourceId: "src" }),
      group.submit({ body: { id: 42 }, sourceId: "src" }),
      group.submit({ body: { id: 43 }, sourceId: "src" }),
      group.submit({ body: { id: 42 }, sourceId: "other" }),
    ]);
    expect(commits).toEqual([4]);
    expect(results).toEqual([false, true, false, false]);
    // Counted per source per batch: one counter row each, the figures exact.
    expect(await sourceStats(countersOf(db, deps), "src", "all_time", deps)).toMatchObject({
      total_requests: 3,
      duplicates_rejected: 1,
    });
    expect(await sourceStats(countersOf(db, deps), "other", "all_time", deps)).toMatchObject({
      total_requests: 1,
      duplicates_rejected: 0,
    });
    expect(db.sqlite.query("SELECT count(*) AS n FROM dedup_counters").get()).toEqual({ n: 2 });
  });

  test("a rolled-back ingest leaves neither its key nor its count", async () => {
    const { db, deps, ingest } = setup();
    const ticket = prepareDedup({
      sourceId: "src",
      config,
      request: request({ id: 5 }),
      rawBody: "",
    });
    expect(() =>
      db.tx((tx) => {
        checkAndRecord(tx, ticket, deps);
        throw new Error("event insert failed");
      }),
    ).toThrow("event insert failed");
    expect((await sourceStats(countersOf(db, deps), "src", "all_time", deps)).total_requests).toBe(
      0,
    );
    expect(ingest("src", { id: 5 })).toBe(false);
  });
});

describe("stats", () => {
  test("periods sum whole hours; the rate is a percentage; all_time sums everything", async () => {
    const { ingest, clock, db, deps } = setup();
    ingest("src", { id: 1 });
    ingest("src", { id: 1 });
    clock.advance(40 * 24 * HOUR);
    ingest("src", { id: 2 });
    clock.advance(10 * 24 * HOUR);
    ingest("src", { id: 3 });
    ingest("src", { id: 3 });
    ingest("src", { id: 3 });
    clock.advance(30 * HOUR);
    ingest("src", { id: 4 });
    expect(await sourceStats(countersOf(db, deps), "src", "24h", deps)).toEqual({
      total_requests: 1,
      duplicates_rejected: 0,
      duplicate_rate: 0,
      rejected_unverified: 0,
      period: "24h",
    });
    expect(await sourceStats(countersOf(db, deps), "src", "7d", deps)).toMatchObject({
      total_requests: 4,
      duplicates_rejected: 2,
      duplicate_rate: 50,
      rejected_unverified: 0,
    });
    expect((await sourceStats(countersOf(db, deps), "src", "30d", deps)).total_requests).toBe(5);
    expect(await sourceStats(countersOf(db, deps), "src", "all_time", deps)).toEqual({
      total_requests: 7,
      duplicates_rejected: 3,
      duplicate_rate: 42.86,
      rejected_unverified: 0,
      period: "all_time",
    });
    expect(
      (await sourceStats(countersOf(db, deps), "other", "all_time", deps)).duplicate_rate,
    ).toBe(0);
  });

  test("period: absent is all_time, 24h/7d/30d pass, anything else is a 422", () => {
    expect(parseStatsPeriod(undefined)).toBe("all_time");
    for (const p of ["24h", "7d", "30d"] as const) expect(parseStatsPeriod(p)).toBe(p);
    for (const bad of ["1h", "all_time", "", "toString", ["24h"]]) {
      let error: unknown;
      try {
        parseStatsPeriod(bad);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(422);
      expect((error as AppError).toBody()).toMatchObject({ errors: { period: expect.any(Array) } });
    }
  });
});

describe("sweep and restart", () => {
  test("expired keys go in batches of at most the limit, one transaction each; live keys stay", async () => {
    const { db, deps, clock, ingest } = setup();
    const short = { ...config, ttl_seconds: 1 };
    const long = { ...config, ttl_seconds: 3600 };
    for (let i = 0; i < 2_500; i++) ingest("src", { id: `old${i}` }, short);
    for (let i = 0; i < 10; i++) ingest("src", { id: `live${i}` }, long);
    clock.advance(1_000);
    const batches: number[] = [];
    const counting = {
      tx<T>(fn: Parameters<typeof db.tx<T>>[0]): T {
        const result = db.tx(fn);
        batches.push((result as { entries: unknown[] }).entries.length);
        return result;
      },
    };
    expect(await sweepExpiredKeys(counting, deps, 1_000)).toBe(2_500);
    expect(batches.slice(0, 3)).toEqual([1_000, 1_000, 500]);
    const left = db.sqlite
      .query<{ n: number }, []>("SELECT count(*) AS n FROM dedup_key_log")
      .get();
    expect(left?.n).toBe(10);
    expect(deps.keys.figures().liveKeys).toBe(10);
    expect(ingest("src", { id: "old1" }, short)).toBe(false);
    expect(ingest("src", { id: "live1" }, long)).toBe(true);
  });

  test("a reopened database still knows the unexpired keys and the counters", async () => {
    const { db, deps, ingest } = setup();
    expect(ingest("src", { id: 9 })).toBe(false);
    db.close();
    const reopened = openDatabase(db.dir, "normal");
    try {
      runMigrations(reopened.sqlite, MIGRATIONS);
      // A new process: its index is built from the log.
      const restarted = depsOf(deps.clock);
      const ticket = prepareDedup({
        sourceId: "src",
        config,
        request: request({ id: 9 }),
        rawBody: "",
      });
      expect(reopened.tx((tx) => checkAndRecord(tx, ticket, restarted)).duplicate).toBe(true);
      expect(
        (await sourceStats(countersOf(reopened, restarted), "src", "all_time", restarted))
          .total_requests,
      ).toBe(2);
    } finally {
      reopened.close();
    }
  });

  test("forgetSource drops the source's keys and counters only", async () => {
    const { db, deps, ingest } = setup();
    ingest("gone", { id: 1 });
    ingest("kept", { id: 1 });
    db.tx((tx) => forgetSource(tx, "gone", deps));
    expect((await sourceStats(countersOf(db, deps), "gone", "all_time", deps)).total_requests).toBe(
      0,
    );
    expect(ingest("gone", { id: 1 })).toBe(false);
    expect(ingest("kept", { id: 1 })).toBe(true);
  });
});
