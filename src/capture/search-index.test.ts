/**
 * The search index is written after the captures commit (migration 0016): chunk by chunk with
 * its mark, and whatever is left before a search reads it, so a search sees every stored request.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { TxOptions } from "../db/db.tx.ts";
import {
  insertCapturedRequest,
  insertEndpoint,
  insertOrganization,
} from "../test-utils/requests-fixtures.ts";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { NO_FILTER } from "./request-filter.model.ts";
import { createRequestsRepo } from "./requests.repo.ts";
import { createSearchIndexer, SEARCH_INDEX_CHUNK } from "./search-index.service.ts";

let db: TestDb;
beforeEach(() => {
  db = createTestDb();
  insertOrganization(db, "org-a");
  insertEndpoint(db, { id: "ep-a", organizationId: "org-a" });
});
afterEach(() => db.destroy());

const indexedThrough = () =>
  (
    db.sqlite.query("SELECT indexed_through AS n FROM captured_requests_search_mark").get() as {
      n: number;
    }
  ).n;
const indexHits = (word: string) =>
  (
    db.sqlite
      .query(
        "SELECT count(*) AS n FROM captured_requests_search WHERE captured_requests_search MATCH ?",
      )
      .get(`"${word}"`) as { n: number }
  ).n;
const search = (q: string) =>
  createRequestsRepo(db)
    .listMatching("ep-a", { ...NO_FILTER, q }, 0, 50)
    .map((r) => r.id);

describe("search index after commit", () => {
  test("indexForSearch adds the next rows oldest first and moves the mark with them", () => {
    for (let i = 1; i <= 5; i++)
      insertCapturedRequest(db, { id: `r${i}`, endpointId: "ep-a", body: `word${i}` });
    const repo = createRequestsRepo(db);
    expect(indexHits("word1")).toBe(0);
    expect(repo.indexForSearch(3)).toBe(3);
    expect(indexedThrough()).toBe(3);
    expect([indexHits("word3"), indexHits("word4")]).toEqual([1, 0]);
    expect(repo.indexForSearch(3)).toBe(2);
    expect(repo.indexForSearch(3)).toBe(0);
    expect(indexHits("word5")).toBe(1);
  });

  test("the index's commits do not wait for the disk: it is derived data, indexed again if lost", () => {
    insertCapturedRequest(db, { id: "r1", endpointId: "ep-a", body: "durable" });
    const asked: (TxOptions | undefined)[] = [];
    const watched: typeof db = {
      ...db,
      tx: (fn, options) => {
        asked.push(options);
        return db.tx(fn, options);
      },
    };
    expect(createRequestsRepo(watched).indexForSearch(10)).toBe(1);
    expect(asked).toEqual([{ durable: false }]);
  });

  test("a transaction that is slow to begin still indexes: 0 must only ever mean none is left", () => {
    insertCapturedRequest(db, { id: "r1", endpointId: "ep-a", body: "late" });
    const slowToBegin: typeof db = {
      ...db,
      tx: (fn, options) => {
        const until = performance.now() + 20; // a busy machine, a GC pause, a lock held elsewhere
        while (performance.now() < until);
        return db.tx(fn, options);
      },
    };
    expect(createRequestsRepo(slowToBegin).indexForSearch(10)).toBe(1);
    expect(indexedThrough()).toBe(1);
  });

  test("large bodies are indexed a few at a time, each whole, until none is left", () => {
    const big = "word ".repeat(20_000); // 100 KB: over a step's text budget alone
    const mid = "term ".repeat(5_000); // 25 KB
    insertCapturedRequest(db, { id: "r1", endpointId: "ep-a", body: big });
    for (let i = 2; i <= 9; i++)
      insertCapturedRequest(db, { id: `r${i}`, endpointId: "ep-a", body: mid });
    const repo = createRequestsRepo(db);
    let total = 0;
    for (let n = repo.indexForSearch(500); n > 0; n = repo.indexForSearch(500)) total += n;
    expect(total).toBe(9);
    expect([indexHits("word"), indexHits("term")]).toEqual([1, 8]);
    expect(indexedThrough()).toBe(9);
  });

  test("steps sized by large rows still take small rows hundreds at a time once they follow", () => {
    const mid = "term ".repeat(5_000); // 25 KB: two to a step
    for (let i = 1; i <= 6; i++)
      insertCapturedRequest(db, {
        id: `r${String(i).padStart(3, "0")}`,
        endpointId: "ep-a",
        body: mid,
      });
    for (let i = 7; i <= 306; i++)
      insertCapturedRequest(db, {
        id: `r${String(i).padStart(3, "0")}`,
        endpointId: "ep-a",
        body: `small${i}`,
      });
    const repo = createRequestsRepo(db);
    const sqlite = db.sqlite as { prepare: typeof db.sqlite.prepare };
    const reads: number[] = [];
    const prepare = sqlite.prepare.bind(db.sqlite);
    sqlite.prepare = ((source: string) => {
      const statement = prepare(source);
      if (!source.includes("length(body)")) return statement;
      const all = statement.all.bind(statement);
      statement.all = ((...args: [number, number]) => {
        const rows = all(...args);
        reads.push(rows.length);
        return rows;
      }) as typeof statement.all;
      return statement;
    }) as typeof sqlite.prepare;
    const watched = createRequestsRepo(db);
    sqlite.prepare = prepare;
    let total = 0;
    for (let n = watched.indexForSearch(500); n > 0; n = watched.indexForSearch(500)) total += n;
    expect(total).toBe(306);
    expect([indexHits("term"), indexHits("small7"), indexHits("small306")]).toEqual([6, 1, 1]);
    // After the first read, the large rows' steps read three rows to take two, not a hundred;
    // once small rows follow, each step reads twice what the last took, up to what is left.
    expect(reads.filter((n) => n > 0)).toEqual([128, 3, 3, 6, 12, 24, 48, 96, 113]);
    expect(repo.indexForSearch(500)).toBe(0);
  });

  test("a search indexes what is left before it reads, so it finds every stored request", () => {
    insertCapturedRequest(db, { id: "r1", endpointId: "ep-a", body: "needle-one" });
    insertCapturedRequest(db, { id: "r2", endpointId: "ep-a", body: "needle-two" });
    expect(indexHits("needle")).toBe(0);
    expect(search("needle")).toEqual(["r2", "r1"]);
    expect(createRequestsRepo(db).countMatching("ep-a", { ...NO_FILTER, q: "two" })).toBe(1);
  });

  test("a rowid freed by deleting the newest rows is indexed again when a capture reuses it", () => {
    insertCapturedRequest(db, { id: "r1", endpointId: "ep-a", body: "kept" });
    insertCapturedRequest(db, { id: "r2", endpointId: "ep-a", body: "dropped" });
    expect(search("dropped")).toEqual(["r2"]);
    db.sqlite.run("DELETE FROM captured_requests WHERE id = 'r2'");
    expect(indexedThrough()).toBe(1);
    expect(indexHits("dropped")).toBe(0);
    insertCapturedRequest(db, { id: "r3", endpointId: "ep-a", body: "reused" });
    expect(search("reused")).toEqual(["r3"]);
    expect(search("dropped")).toEqual([]);
  });

  test("deleting a row not indexed yet leaves the index and the rest untouched", () => {
    insertCapturedRequest(db, { id: "r1", endpointId: "ep-a", body: "first" });
    expect(search("first")).toEqual(["r1"]);
    insertCapturedRequest(db, { id: "r2", endpointId: "ep-a", body: "second" });
    insertCapturedRequest(db, { id: "r3", endpointId: "ep-a", body: "third" });
    db.sqlite.run("DELETE FROM captured_requests WHERE id = 'r2'");
    expect(search("second")).toEqual([]);
    expect(search("third")).toEqual(["r3"]);
    expect(search("first")).toEqual(["r1"]);
  });
});

describe("createSearchIndexer", () => {
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  test("indexes on a later turn once a chunk has committed, not before", async () => {
    const calls: number[] = [];
    let backlog = 0;
    const indexer = createSearchIndexer({
      indexNext: (limit) => {
        const n = Math.min(limit, backlog);
        backlog -= n;
        calls.push(n);
        return n;
      },
      onError: () => {},
    });
    backlog = SEARCH_INDEX_CHUNK - 1;
    indexer.committed(SEARCH_INDEX_CHUNK - 1);
    await nextTurn();
    expect(calls).toEqual([]);
    backlog += 2 * SEARCH_INDEX_CHUNK + 11;
    indexer.committed(2 * SEARCH_INDEX_CHUNK + 11);
    expect(calls).toEqual([]);
    for (let i = 0; i < 4; i++) await nextTurn();
    expect(calls).toEqual([SEARCH_INDEX_CHUNK, SEARCH_INDEX_CHUNK, SEARCH_INDEX_CHUNK]);
    indexer.catchUp();
    expect(calls.slice(3)).toEqual([10, 0]);
    expect(backlog).toBe(0);
  });

  test("catchUp takes the tail, does nothing when nothing committed, and reports failures", () => {
    const errors: unknown[] = [];
    let calls = 0;
    const indexer = createSearchIndexer({
      indexNext: () => {
        calls += 1;
        throw new Error("disk I/O error");
      },
      onError: (error) => errors.push(error),
    });
    indexer.catchUp();
    expect(calls).toBe(0);
    indexer.committed(3);
    indexer.catchUp();
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
  });
});
