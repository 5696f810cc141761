#!/usr/bin/env bun
/**
 * Focused measure of what deduplication costs per ingest inside the group commit, apart from the
 * HTTP path: batches of fresh keys checked and recorded in one durable (synchronous=FULL)
 * transaction each, on a real database file, with 0 and with 200k live keys. Two stores in the
 * same run, measured in interleaved rounds:
 *   log    the append-only `dedup_key_log` and the in-memory index (what Weir runs);
 *   btree  the former `dedup_keys` table (PRIMARY KEY (source_id, key hex) + expiry index, one
 *          upsert per key), rebuilt here as the in-run baseline.
 * Also printed: hashing one 1 KiB webhook under `exclude_fields` with 3 paths (done before the
 * transaction), and the index's memory per key.
 *
 * Usage: bun scripts/bench/dedup-keys.ts [--live 200000] [--batches 200] [--batch 50] [--rounds 3]
 */
import type { Database } from "bun:sqlite";
import { loadavg } from "node:os";
import { runMigrations } from "../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../src/db/db.migrations.ts";
import { type Db, openDatabase } from "../../src/db/db.open.ts";
import { createDedupKeys } from "../../src/dedup/dedup.keys.ts";
import { canonicalByParts, exclusionOf } from "../../src/dedup/dedup.model.ts";
import { dedupRepo } from "../../src/dedup/dedup.repo.ts";
import { beginDedupBatch, type DedupDeps, prepareDedup } from "../../src/dedup/dedup.service.ts";
import { createFakeClock } from "../../src/test-utils/fake-clock.ts";
import { makeTempDir } from "../../src/test-utils/temp-dir.ts";
import { EXCLUDE_FIELDS, UNIQUE_TOKEN, webhookBody } from "./scenarios/ingest-setup.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const LIVE = argument("--live", 200_000);
const BATCHES = argument("--batches", 200);
const BATCH = argument("--batch", 50);
const ROUNDS = argument("--rounds", 3);
const TTL_MS = 3_600_000;
const SOURCE = "src_bench";

const randomKey = () => crypto.getRandomValues(new Uint8Array(32));

/** A store under test: checks one batch of fresh keys in one transaction. */
interface Store {
  name: string;
  live: number;
  batch(keys: Uint8Array[]): void;
  close(): void;
}

function openDb(): { db: Db; remove: () => void } {
  const dir = makeTempDir("weir-bench-dedup-");
  const db = openDatabase(dir.path, "full");
  runMigrations(db.sqlite, MIGRATIONS);
  return {
    db,
    remove: () => {
      db.close();
      dir.remove();
    },
  };
}

function logStore(live: number): Store {
  const { db, remove } = openDb();
  const clock = createFakeClock();
  const deps: DedupDeps = {
    repo: dedupRepo,
    keys: createDedupKeys({ repo: dedupRepo, maxKeys: 10_000_000 }),
    clock,
  };
  // As the ingest path does: the batch is told its transaction committed (no read to learn it).
  const batch = (keys: Uint8Array[]) =>
    db
      .tx((tx) => {
        const dedup = beginDedupBatch(tx, deps);
        for (const key of keys) dedup.check({ sourceId: SOURCE, key, ttlMs: TTL_MS });
        dedup.finish();
        return dedup;
      })
      .committed();
  for (let n = 0; n < live; n += 5_000) batch(Array.from({ length: 5_000 }, randomKey));
  return { name: "log", live, batch, close: remove };
}

function btreeStore(live: number): Store {
  const { db, remove } = openDb();
  const sqlite: Database = db.sqlite;
  sqlite.run(`CREATE TABLE dedup_keys (source_id text NOT NULL, key text NOT NULL,
    expires_at integer NOT NULL, PRIMARY KEY (source_id, key))`);
  sqlite.run("CREATE INDEX dedup_keys_expires_idx ON dedup_keys (expires_at)");
  const claim = sqlite.prepare<{ fresh: number }, [string, string, number, number]>(
    `INSERT INTO dedup_keys (source_id, key, expires_at) VALUES (?1, ?2, ?3)
     ON CONFLICT (source_id, key) DO UPDATE SET expires_at = excluded.expires_at
     WHERE dedup_keys.expires_at <= ?4 RETURNING 1 AS fresh`,
  );
  const now = Date.now();
  const batch = (keys: Uint8Array[]) =>
    db.tx((tx) => {
      for (const key of keys)
        claim.get(SOURCE, Buffer.from(key).toString("hex"), now + TTL_MS, now);
      dedupRepo.countIngests(tx, SOURCE, now - (now % 3_600_000), keys.length, 0);
    });
  for (let n = 0; n < live; n += 5_000) batch(Array.from({ length: 5_000 }, randomKey));
  return { name: "btree", live, batch, close: remove };
}

/** CPU and wall µs per key over BATCHES batches of fresh keys. */
function measure(store: Store): { cpu: number; wall: number } {
  const keys = Array.from({ length: BATCHES }, () => Array.from({ length: BATCH }, randomKey));
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (const batch of keys) store.batch(batch);
  const cpu = process.cpuUsage(cpu0);
  const events = BATCHES * BATCH;
  return {
    cpu: (cpu.user + cpu.system) / events,
    wall: ((performance.now() - wall0) * 1000) / events,
  };
}

/** CPU µs per call of `fn` over `n` items, best of 5 rounds after a warm-up round. */
function cpuPerCall(n: number, fn: (i: number) => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 6; round++) {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) fn(i);
    const cpu = process.cpuUsage(cpu0);
    if (round > 0) best = Math.min(best, (cpu.user + cpu.system) / n);
  }
  return best;
}

/**
 * CPU µs to key one request (the parse excluded: routing parses the body anyway), and the same
 * with the canonical text written value by value as before.
 */
function keyCost(): { now: number; byParts: number } {
  const config = { enabled: true, exclude_fields: EXCLUDE_FIELDS, ttl_seconds: 300 };
  const template = webhookBody();
  const n = 5_000;
  const raws = Array.from({ length: n }, (_, i) =>
    template.replace(UNIQUE_TOKEN, String(i).padStart(UNIQUE_TOKEN.length, "0")),
  );
  const views = raws.map((raw) => ({ body: JSON.parse(raw), headers: {}, query: {}, path: {} }));
  const exclusion = exclusionOf(EXCLUDE_FIELDS);
  return {
    now: cpuPerCall(n, (i) =>
      prepareDedup({ sourceId: SOURCE, config, request: views[i] as never, rawBody: "" }),
    ),
    byParts: cpuPerCall(n, (i) =>
      Bun.SHA256.hash(`exclude_fields\n${canonicalByParts(views[i]?.body, exclusion)}`),
    ),
  };
}

/**
 * µs spent in `begin` per batch (the batch before it: 5 fresh keys), when the previous batch was
 * told its outcome and when it was not (begin reads its last row to learn it), interleaved.
 */
function beginCost(): { reported: number; read: number } {
  const { db, remove } = openDb();
  const clock = createFakeClock();
  const keys = createDedupKeys({ repo: dedupRepo, maxKeys: 10_000_000 });
  const deps: DedupDeps = { repo: dedupRepo, keys, clock };
  const spent = { reported: [] as number[], read: [] as number[] };
  const n = 2_000;
  for (let round = 0; round < 2 * ROUNDS + 2; round++) {
    const report = round % 2 === 0;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const dedup = db.tx(
        (tx) => {
          const started = performance.now();
          const batch = beginDedupBatch(tx, deps);
          total += performance.now() - started;
          for (let k = 0; k < 5; k++)
            batch.check({ sourceId: SOURCE, key: randomKey(), ttlMs: TTL_MS });
          return batch;
        },
        { durable: false },
      );
      if (report) dedup.committed();
    }
    // The first round of each kind warms up.
    if (round >= 2) spent[report ? "reported" : "read"].push((total * 1000) / n);
  }
  remove();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return { reported: median(spent.reported), read: median(spent.read) };
}

function memoryPerKey(): number {
  Bun.gc(true);
  const before = process.memoryUsage().rss;
  const keys = createDedupKeys({ repo: dedupRepo, maxKeys: 2_000_000 });
  const { db, remove } = openDb();
  const clock = createFakeClock();
  const deps: DedupDeps = { repo: dedupRepo, keys, clock };
  const count = 1_000_000;
  for (let n = 0; n < count; n += 10_000) {
    db.tx((tx) => {
      const dedup = beginDedupBatch(tx, deps);
      for (let i = 0; i < 10_000; i++)
        dedup.check({ sourceId: SOURCE, key: randomKey(), ttlMs: TTL_MS });
      dedup.finish();
    });
  }
  Bun.gc(true);
  const perKey = (process.memoryUsage().rss - before) / count;
  console.log(
    `index: ${keys.figures().liveKeys} keys, arrays ${(keys.figures().indexBytes / 1e6).toFixed(1)} MB, RSS +${((perKey * count) / 1e6).toFixed(1)} MB (sqlite page cache included)`,
  );
  // What a restart pays: the index rebuilt from the log.
  const restarted = createDedupKeys({ repo: dedupRepo, maxKeys: 2_000_000 });
  const started = performance.now();
  db.tx((tx) => restarted.begin(tx, clock.now()));
  console.log(
    `restart: index of ${restarted.figures().liveKeys} keys rebuilt from the log in ${Math.round(performance.now() - started)} ms`,
  );
  remove();
  return perKey;
}

console.log(
  `dedup-keys: batches of ${BATCH} fresh keys, ${BATCHES} per measure, ${ROUNDS} rounds; load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")}`,
);
const key = keyCost();
console.log(
  `key of a 1 KiB body, exclude_fields ×3 (canonical text + SHA-256): ${key.now.toFixed(1)} µs CPU/event; written value by value (before): ${key.byParts.toFixed(1)}`,
);
const begin = beginCost();
console.log(
  `begin of a batch (settling the one before): ${begin.reported.toFixed(2)} µs when its commit was reported; ${begin.read.toFixed(2)} µs when read back from the log (before)`,
);
const stores = [logStore(0), btreeStore(0), logStore(LIVE), btreeStore(LIVE)];
const results = new Map<Store, { cpu: number[]; wall: number[] }>(
  stores.map((s) => [s, { cpu: [], wall: [] }]),
);
for (let round = 0; round < ROUNDS; round++) {
  // Who goes first rotates, so a busy neighbour does not always hit the same store.
  for (let i = 0; i < stores.length; i++) {
    const store = stores[(i + round) % stores.length] as Store;
    const figures = measure(store);
    results.get(store)?.cpu.push(figures.cpu);
    results.get(store)?.wall.push(figures.wall);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
for (const live of [0, LIVE]) {
  const [log, btree] = ["log", "btree"].map((name) =>
    stores.find((s) => s.name === name && s.live === live),
  ) as [Store, Store];
  const l = results.get(log);
  const b = results.get(btree);
  if (!l || !b) continue;
  console.log(
    `${String(live).padStart(7)} live keys: log ${median(l.cpu).toFixed(1)} µs CPU/key (wall ${median(l.wall).toFixed(1)}), btree ${median(b.cpu).toFixed(1)} (wall ${median(b.wall).toFixed(1)}); log ÷ btree CPU ${(median(l.cpu) / median(b.cpu)).toFixed(2)}`,
  );
}
for (const store of stores) store.close();
if (!process.argv.includes("--no-memory")) {
  console.log(`memory: ${memoryPerKey().toFixed(0)} bytes RSS per live key (1M keys)`);
}
