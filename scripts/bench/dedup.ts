#!/usr/bin/env bun
/**
 * Per-ingest cost of deduplication, against an ingest-like write measured in the same run, in
 * interleaved rounds. The workload is the issue's: a 1 KiB JSON body, `exclude_fields` with 3
 * paths, every request fresh (the expensive case: the key is written, not just looked up).
 *
 *   bun scripts/bench/dedup.ts [--requests 4000] [--rounds 5] [--batch 64]
 *
 * - "baseline": what an ingest does anyway: JSON.parse of the body and one INSERT of a 1 KiB row,
 *   committed in group-commit batches of `--batch` on a durability=full database.
 * - "baseline + dedup": the same, plus prepareDedup (canonical encoding + SHA-256) before the
 *   transaction and checkAndRecord (the claim upsert + the counter upsert) inside it.
 * - "key only" / "statement only": the two parts alone, in µs per request.
 *
 * The ratio (baseline + dedup) ÷ baseline is the share dedup adds to the write path of an ingest.
 * The HTTP and routing work of a real ingest is not in the baseline, so the real share is lower.
 */
import { parseArgs } from "node:util";
import { runMigrations } from "../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../src/db/db.migrations.ts";
import { openDatabase } from "../../src/db/db.open.ts";
import type { DedupConfig } from "../../src/dedup/dedup.model.ts";
import { dedupRepo } from "../../src/dedup/dedup.repo.ts";
import { checkAndRecord, type DedupTicket, prepareDedup } from "../../src/dedup/dedup.service.ts";
import type { RequestView } from "../../src/shared/field-path.ts";
import { makeTempDir } from "../../src/test-utils/temp-dir.ts";
import { formatRatio, median, ratio } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "4000" },
    rounds: { type: "string", default: "5" },
    batch: { type: "string", default: "64" },
  },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);

const CONFIG: DedupConfig = {
  enabled: true,
  exclude_fields: ["body.timestamp", "body.meta.delivery_id", "body.items[*].seen_at"],
  ttl_seconds: 300,
};

/** A ~1 KiB order webhook; `n` makes each body distinct. */
function bodyText(n: number): string {
  return JSON.stringify({
    id: `evt_${n}`,
    type: "order.updated",
    timestamp: 1_760_000_000 + n,
    meta: { delivery_id: `dlv_${n}`, attempt: 1, source: "shop-eu-1" },
    customer: { id: "cus_8812", email: "ana@example.com", name: "Ana Lima", tier: "gold" },
    items: Array.from({ length: 6 }, (_, i) => ({
      sku: `SKU-${1000 + i}`,
      qty: i + 1,
      price: 19.99 + i,
      title: `Item number ${i} with a longer title`,
      seen_at: 1_760_000_000 + n + i,
    })),
    total: 321.5,
    currency: "EUR",
    note: "é ü ß — unicode ok",
  });
}

const dir = makeTempDir("weir-bench-dedup-");
const db = openDatabase(dir.path, "full");
runMigrations(db.sqlite, MIGRATIONS);
db.sqlite.run("CREATE TABLE bench_events (id TEXT PRIMARY KEY, source_id TEXT, body TEXT)");
const insertEvent = db.sqlite.prepare<never, [string, string, string]>(
  "INSERT INTO bench_events (id, source_id, body) VALUES (?, ?, ?)",
);
const deps = { repo: dedupRepo, clock: { now: () => Date.now() } };
const bodies = Array.from({ length: REQUESTS }, (_, n) => bodyText(n));
console.error(`body ${bodies[0]?.length} bytes, ${REQUESTS} requests/round, batch ${BATCH}`);
let round = 0;

function view(body: unknown): RequestView {
  return { body, headers: { "content-type": "application/json" }, query: {}, path: {} };
}

/** µs per request of the write path, with or without dedup. */
function ingestRun(withDedup: boolean): number {
  const source = `src_${round++}`;
  const start = performance.now();
  for (let from = 0; from < REQUESTS; from += BATCH) {
    const batch = bodies.slice(from, from + BATCH);
    const items = batch.map((raw) => {
      const body = JSON.parse(raw);
      const ticket = withDedup
        ? prepareDedup({ sourceId: source, config: CONFIG, request: view(body), rawBody: raw })
        : null;
      return { raw, ticket };
    });
    db.tx((tx) => {
      items.forEach((item, i) => {
        if (item.ticket && checkAndRecord(tx, item.ticket, deps).duplicate) return;
        insertEvent.run(`${source}_${from + i}`, source, item.raw);
      });
    });
  }
  return ((performance.now() - start) * 1000) / REQUESTS;
}

function keyOnly(): number {
  const parsed = bodies.map((raw) => JSON.parse(raw));
  const start = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    prepareDedup({ sourceId: "k", config: CONFIG, request: view(parsed[i]), rawBody: "" });
  }
  return ((performance.now() - start) * 1000) / REQUESTS;
}

function statementOnly(): number {
  const source = `stmt_${round++}`;
  const tickets: DedupTicket[] = bodies.map((_, i) => ({
    sourceId: source,
    key: `${i}`.padStart(64, "0"),
    ttlMs: 300_000,
  }));
  const start = performance.now();
  for (let from = 0; from < REQUESTS; from += BATCH) {
    db.tx((tx) => {
      for (const ticket of tickets.slice(from, from + BATCH)) checkAndRecord(tx, ticket, deps);
    });
  }
  return ((performance.now() - start) * 1000) / REQUESTS;
}

const results = {
  baseline: [] as number[],
  dedup: [] as number[],
  key: [] as number[],
  stmt: [] as number[],
};
ingestRun(false);
ingestRun(true);
for (let r = 0; r < ROUNDS; r++) {
  results.baseline.push(ingestRun(false));
  results.dedup.push(ingestRun(true));
  results.key.push(keyOnly());
  results.stmt.push(statementOnly());
}
const base = median(results.baseline);
const withDedup = median(results.dedup);
const fmt = (us: number) => `${us.toFixed(1)} µs`;
console.log(`baseline (parse + insert, batched)   ${fmt(base)} / request`);
console.log(`baseline + dedup                     ${fmt(withDedup)} / request`);
console.log(`  key only (canonical + SHA-256)     ${fmt(median(results.key))}`);
console.log(`  statement only (claim + counter)   ${fmt(median(results.stmt))}`);
console.log(
  `dedup share: (baseline + dedup) / baseline = ${formatRatio(ratio(withDedup, base))}; ` +
    `rate with dedup = ${(100 * (base / withDedup)).toFixed(1)} % of the rate without`,
);
db.close();
dir.remove();
