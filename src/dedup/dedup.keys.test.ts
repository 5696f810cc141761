import { afterEach, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../test-utils/test-db.ts";
import { DedupKeyIndex, digestPrefix } from "./dedup.key-index.ts";
import { createDedupKeys, type DedupKeys } from "./dedup.keys.ts";
import { dedupRepo } from "./dedup.repo.ts";

const T0 = 1_700_000_000_000;
const TTL = 60_000;

/** A 32-byte key: `prefix` fills the first 6 bytes (the indexed part), `rest` the others. */
function digest(prefix: number, rest = 0): Uint8Array {
  const bytes = new Uint8Array(32);
  const view = new DataView(bytes.buffer);
  view.setUint16(0, Math.floor(prefix / 2 ** 32));
  view.setUint32(2, prefix % 2 ** 32);
  view.setUint32(28, rest);
  return bytes;
}

let db: TestDb | null = null;
afterEach(() => {
  db?.destroy();
  db = null;
});

function setup(maxKeys = 1_000) {
  db = createTestDb();
  const full: number[] = [];
  const keys = createDedupKeys({ repo: dedupRepo, maxKeys, onFull: (max) => full.push(max) });
  const testDb = db;
  /** One batch (one transaction) of claims at `now`. */
  const batch = (claims: [string, Uint8Array][], now = T0, store: DedupKeys = keys) =>
    testDb.tx((tx) => {
      store.begin(tx, now);
      return claims.map(([source, key]) => store.claim(tx, source, key, now + TTL, now));
    });
  const rows = () =>
    testDb.sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM dedup_key_log").get()?.n;
  return { db: testDb, keys, full, batch, rows };
}

describe("DedupKeyIndex", () => {
  test("finds entries by source and prefix through growth, removal and slot reuse", () => {
    const index = new DedupKeyIndex(100_000);
    for (let i = 0; i < 5_000; i++) index.add(i % 2 ? "a" : "b", i * 7919, i, T0 + i);
    expect(index.size).toBe(5_000);
    expect(index.candidates("a", 1 * 7919)).toEqual([{ slot: 1, rowid: 1, expiresAt: T0 + 1 }]);
    expect(index.candidates("b", 1 * 7919)).toEqual([]);
    expect(index.candidates("nobody", 0)).toEqual([]);
    expect(index.remove(1)).toBe(true);
    expect(index.remove(1)).toBe(false);
    expect(index.candidates("a", 7919)).toEqual([]);
    const reused = index.add("c", 42, 9_999, T0);
    expect(reused).toBe(1);
    expect(index.candidates("c", 42)).toEqual([{ slot: 1, rowid: 9_999, expiresAt: T0 }]);
    expect(index.candidates("a", 3 * 7919)[0]?.rowid).toBe(3);
  });

  test("one prefix may hold several entries; dropSource removes a source's only", () => {
    const index = new DedupKeyIndex(10);
    index.add("a", 5, 1, T0);
    index.add("a", 5, 2, T0);
    index.add("b", 5, 3, T0);
    expect(index.candidates("a", 5).map((c) => c.rowid)).toEqual([2, 1]);
    expect(index.dropSource("a")).toBe(2);
    expect(index.candidates("a", 5)).toEqual([]);
    expect(index.candidates("b", 5).map((c) => c.rowid)).toEqual([3]);
    expect(index.size).toBe(1);
  });

  test("refuses beyond its cap; expired() scans in bounded steps", () => {
    const index = new DedupKeyIndex(5);
    for (let i = 0; i < 5; i++) expect(index.add("a", i, i, T0 + (i % 2) * TTL)).not.toBeNull();
    expect(index.full).toBe(true);
    expect(index.add("a", 99, 99, T0)).toBeNull();
    const first = index.expired(T0, 2, 0);
    expect(first.entries.map((e) => e.rowid)).toEqual([0, 2]);
    expect(first.done).toBe(false);
    const second = index.expired(T0, 2, first.next);
    expect(second.entries.map((e) => e.rowid)).toEqual([4]);
    expect(second.done).toBe(true);
  });

  test("the prefix is the digest's first 48 bits", () => {
    expect(digestPrefix(digest(0x0123_4567_89ab))).toBe(0x0123_4567_89ab);
    expect(digestPrefix(new Uint8Array(32).fill(255))).toBe(2 ** 48 - 1);
  });
});

describe("DedupKeys", () => {
  test("a key is a duplicate within its TTL and per source; a prefix collision is not", () => {
    const { batch } = setup();
    expect(batch([["s", digest(7, 1)]])).toEqual(["fresh"]);
    expect(batch([["s", digest(7, 1)]], T0 + TTL - 1)).toEqual(["duplicate"]);
    // Same 48-bit prefix, another key: confirmed against the row, so it is fresh.
    expect(batch([["s", digest(7, 2)]])).toEqual(["fresh"]);
    expect(batch([["t", digest(7, 1)]])).toEqual(["fresh"]);
    expect(batch([["s", digest(7, 2)]])).toEqual(["duplicate"]);
    expect(batch([["s", digest(7, 1)]], T0 + TTL)).toEqual(["fresh"]);
  });

  test("two identical keys in one batch: the second is a duplicate", () => {
    const { batch, rows } = setup();
    expect(
      batch([
        ["s", digest(1)],
        ["s", digest(1)],
        ["s", digest(2)],
      ]),
    ).toEqual(["fresh", "duplicate", "fresh"]);
    expect(rows()).toBe(2);
  });

  test("a rolled-back batch leaves no key, even when its rowids are reused", () => {
    const { db, keys, batch } = setup();
    batch([["s", digest(1)]]);
    expect(() =>
      db.tx((tx) => {
        keys.begin(tx, T0);
        keys.claim(tx, "s", digest(2), T0 + TTL, T0);
        keys.claim(tx, "s", digest(3), T0 + TTL, T0);
        throw new Error("the event insert failed");
      }),
    ).toThrow("the event insert failed");
    expect(keys.figures().liveKeys).toBe(3);
    // The next batch's first row takes digest(2)'s rowid: the index must not confuse them.
    expect(batch([["s", digest(4)]])).toEqual(["fresh"]);
    expect(keys.figures().liveKeys).toBe(2);
    expect(batch([["s", digest(2)]])).toEqual(["fresh"]);
    expect(batch([["s", digest(3)]])).toEqual(["fresh"]);
    expect(batch([["s", digest(4)]])).toEqual(["duplicate"]);
    expect(batch([["s", digest(1)]])).toEqual(["duplicate"]);
  });

  test("at the cap: fresh keys are accepted and not remembered, counted, warned once", async () => {
    const { db, keys, full, batch, rows } = setup(3);
    expect(batch([1, 2, 3].map((n) => ["s", digest(n)]))).toEqual(["fresh", "fresh", "fresh"]);
    expect(batch([["s", digest(4)]])).toEqual(["unremembered"]);
    // Its retry is accepted again (never a lost event), the remembered ones still caught.
    expect(batch([["s", digest(4)]])).toEqual(["unremembered"]);
    expect(batch([["s", digest(1)]])).toEqual(["duplicate"]);
    expect(rows()).toBe(3);
    expect(keys.figures()).toMatchObject({ liveKeys: 3, maxKeys: 3, unremembered: 2 });
    expect(full).toEqual([3]);
    // Expired keys swept make room again; filling up again warns again.
    await keys.sweep(db, () => T0 + TTL);
    expect(batch([["s", digest(4)]], T0 + TTL)).toEqual(["fresh"]);
    batch(
      [
        ["s", digest(5)],
        ["s", digest(6)],
        ["s", digest(7)],
      ],
      T0 + TTL,
    );
    expect(full).toEqual([3, 3]);
  });

  test("a new process loads the live keys, deletes the expired ones and, past the cap, the oldest", () => {
    const { db, batch, rows } = setup();
    batch([["s", digest(1)]], T0 - TTL);
    batch([["s", digest(2)]], T0);
    batch([["s", digest(3)]], T0 + 1);
    batch([["s", digest(4)]], T0 + 2);
    expect(rows()).toBe(4);
    const restarted = createDedupKeys({ repo: dedupRepo, maxKeys: 2 });
    expect(batch([["s", digest(4)]], T0 + 3, restarted)).toEqual(["duplicate"]);
    expect(restarted.figures().liveKeys).toBe(2);
    expect(rows()).toBe(2);
    expect(batch([["s", digest(3)]], T0 + 3, restarted)).toEqual(["duplicate"]);
    expect(batch([["s", digest(1)]], T0 + 3, restarted)).toEqual(["unremembered"]);
    const stored = db.sqlite
      .query<{ key: Uint8Array }, []>("SELECT key FROM dedup_key_log ORDER BY id")
      .all()
      .map((r) => digestPrefix(r.key));
    expect(stored).toEqual([3, 4]);
  });

  test("forget drops the source's rows in the caller's transaction, its entries once that committed", () => {
    const { db, keys, batch, rows } = setup();
    batch([
      ["gone", digest(1)],
      ["kept", digest(1)],
      ["gone", digest(2)],
    ]);
    db.tx((tx) => keys.forget(tx, "gone", T0));
    expect(rows()).toBe(1);
    expect(batch([["gone", digest(1)]])).toEqual(["fresh"]);
    expect(keys.figures().liveKeys).toBe(2);
    expect(batch([["kept", digest(1)]])).toEqual(["duplicate"]);
  });
});
