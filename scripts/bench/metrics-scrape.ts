#!/usr/bin/env bun
/**
 * What one /metrics scrape costs with a large outbox, and what keeping its figures costs the
 * writes. On real database files:
 *
 *   scrape   the app's /metrics (every source, through the HTTP handler, server not started) on a
 *            database holding `--deliveries` outbox rows (most queued and due: a destination
 *            outage; some due later, some leased, some ended), `--issues` issues and `--breakers`
 *            breakers, against the same scrape on an empty database (the in-run baseline). Also
 *            the statements the scrape ran before the figures were kept (count(*) over the
 *            outbox, GROUP BY over breakers and issues) on both databases.
 *   upgrade  the migration that starts the kept figures, run once over the large database, and
 *            the rebuild of the queue gauges every start does.
 *   writes   a delivery's life (enqueue in batches of 50, claim, success) with the gauges moved
 *            after each commit and the index of leased rows, against the same without them, in
 *            interleaved rounds: CPU per delivery.
 *
 * Usage: bun scripts/bench/metrics-scrape.ts [--deliveries 1000000] [--issues 200000]
 *          [--breakers 10000] [--scrapes 20] [--lives 20000] [--rounds 3]
 */
import type { Database } from "bun:sqlite";
import { loadavg } from "node:os";
import { createApp } from "../../src/app.ts";
import { createDueRows } from "../../src/db/db.due-rows.ts";
import { runMigrations } from "../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../src/db/db.migrations.ts";
import { openDatabase } from "../../src/db/db.open.ts";
import { newDeliveryRow } from "../../src/delivery/delivery.outbox.ts";
import { createDeliveryRepo, type DeliveryRow } from "../../src/delivery/delivery.repo.ts";
import { closeDeps, createDeps } from "../../src/deps.ts";
import { isoAt } from "../../src/shared/clock.ts";
import { loadConfig } from "../../src/shared/config.ts";
import { createLogger } from "../../src/shared/logger.ts";
import { makeTempDir } from "../../src/test-utils/temp-dir.ts";

const argument = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const DELIVERIES = argument("--deliveries", 1_000_000);
const ISSUES = argument("--issues", 200_000);
const BREAKERS = argument("--breakers", 10_000);
const SCRAPES = argument("--scrapes", 20);
const LIVES = argument("--lives", 20_000);
const ROUNDS = argument("--rounds", 3);
const KEPT_FIGURES = MIGRATIONS.findIndex((m) => m.name === "0024_metrics_counted_on_write");
const BEFORE = MIGRATIONS.slice(0, KEPT_FIGURES);
const NOW = Date.now();
const STAMP = isoAt(NOW);

const dirs: { remove(): void }[] = [];
const tempDir = () => {
  const dir = makeTempDir("weir-bench-metrics-");
  dirs.push(dir);
  return dir.path;
};

/** The scrape's statements before the figures were kept: counted over the tables each time. */
const OLD_SCRAPE_SQL = [
  `SELECT (SELECT count(*) FROM deliveries WHERE next_attempt_at IS NOT NULL) AS queued,
          (SELECT count(*) FROM deliveries WHERE next_attempt_at <= ?1
             AND (locked_until IS NULL OR locked_until <= ?1)) AS due`,
  "SELECT phase, count(*) AS n FROM delivery_breakers GROUP BY phase",
  "SELECT status, count(*) AS n FROM issues GROUP BY status",
];

/** Fills a database at the schema before the kept figures: the outbox of an outage, issues, breakers. */
function seed(sqlite: Database): void {
  sqlite.run("BEGIN");
  sqlite.run(
    "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ('org_b', 'b', 'enterprise', ?1, ?1)",
    [STAMP],
  );
  sqlite.run(
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
     VALUES ('src_b', 'org_b', 's', 'webhook', 'bench', ?1, ?1)`,
    [STAMP],
  );
  sqlite.run(
    `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
     VALUES ('brg_b', 'org_b', 'src_b', 'b', 'active', ?1, ?1)`,
    [STAMP],
  );
  sqlite.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)
     INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, max_retries,
       filters, created_at, updated_at)
     SELECT 'dst_' || i, 'brg_b', 'org_b', 'd' || i, 'webhook', 'normal', 5, '[]', ?1, ?1 FROM n`,
    [STAMP],
  );
  // Per 100 rows: 5 ended, 5 due later (backoff over the next hour), 90 due (the backlog);
  // one in a thousand of the due ones under a lease.
  sqlite.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
     INSERT INTO deliveries (id, kind, organization_id, subject_id, destination_key, webhook_id,
       status, attempts, max_retries, next_attempt_at, locked_until, created_at, updated_at)
     SELECT printf('del_%08d', i), 'event', 'org_b', printf('evt_%08d', i), 'dst_' || (i % 200),
       'msg_' || i,
       CASE WHEN i % 100 < 5 THEN 'delivered' WHEN i % 100 < 10 THEN 'retrying' ELSE 'pending' END,
       CASE WHEN i % 100 < 10 THEN 1 ELSE 0 END, 5,
       CASE WHEN i % 100 < 5 THEN NULL
            WHEN i % 100 < 10 THEN ?2 + 1000 + (i * 7919) % 3600000
            ELSE ?2 - (i % 3600000) END,
       CASE WHEN i % 1000 = 17 THEN ?2 + 30000 ELSE NULL END,
       ?3, ?3
     FROM n`,
    [DELIVERIES, NOW, STAMP],
  );
  // Issues: most closed (kept for their retention), one open per destination and code.
  sqlite.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
     INSERT INTO issues (id, organization_id, bridge_id, destination_id, status, error_type,
       error_code, error_message, occurrence_count, first_occurrence_at, last_occurrence_at,
       opened_at, resolved_at, created_at, updated_at)
     SELECT printf('iss_%08d', i), 'org_b', 'brg_b', 'dst_' || (i % 200),
       CASE WHEN i < 200 * 5 THEN 'open' ELSE 'closed' END, 'http_error',
       'http_' || (500 + (i / 200) % 5), 'boom', 1, ?2, ?2, ?2,
       CASE WHEN i < 200 * 5 THEN NULL ELSE ?2 END, ?2, ?2
     FROM n`,
    [ISSUES, STAMP],
  );
  sqlite.run(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
     INSERT INTO delivery_breakers (destination_key, phase, state, updated_at)
     SELECT 'forward:ep_' || i, CASE WHEN i % 10 = 0 THEN 'open' ELSE 'closed' END, '{}', ?2 FROM n`,
    [BREAKERS, STAMP],
  );
  sqlite.run("COMMIT");
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** Median wall and CPU ms of `fn`, run `times` times (after one unmeasured run). */
async function timed(times: number, fn: () => unknown): Promise<{ wall: number; cpu: number }> {
  await fn();
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < times; i++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await fn();
    walls.push(performance.now() - start);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
  }
  return { wall: median(walls), cpu: median(cpus) };
}

/** The app over a data dir (not started: no worker claims the seeded rows), and its scrape. */
async function scraper(dataDir: string) {
  const config = {
    ...loadConfig({ env: {}, flags: { data_dir: dataDir } }).config,
    durability: "normal" as const,
  };
  const deps = await createDeps(config, { logger: createLogger({ level: "error" }) });
  const weir = createApp(deps);
  return {
    deps,
    async scrape(): Promise<string> {
      const response = await weir.app.handle(new Request("http://localhost/metrics"));
      if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
      return response.text();
    },
    close: () => closeDeps(deps),
  };
}

const line = (text: string, series: string) =>
  text.split("\n").find((l) => l.startsWith(`${series} `)) ?? `${series} (missing)`;

async function measureScrapes() {
  const emptyDir = tempDir();
  const bigDir = tempDir();
  const big = openDatabase(bigDir, "normal");
  runMigrations(big.sqlite, BEFORE);
  let start = performance.now();
  seed(big.sqlite);
  console.log(
    `seeded ${DELIVERIES} deliveries, ${ISSUES} issues, ${BREAKERS} breakers in ${((performance.now() - start) / 1000).toFixed(1)} s`,
  );
  start = performance.now();
  runMigrations(big.sqlite, MIGRATIONS);
  const upgradeMs = performance.now() - start;
  start = performance.now();
  createDeliveryRepo(big).rebuildGauges();
  const rebuildMs = performance.now() - start;
  big.close();

  const empty = await scraper(emptyDir);
  const large = await scraper(bigDir);
  const oldStatements = (sqlite: Database) =>
    OLD_SCRAPE_SQL.map((sql) => sqlite.query(sql)).map((statement) => () => statement.all(NOW));
  const oldOn = (sqlite: Database) => {
    const statements = oldStatements(sqlite);
    return () => {
      for (const run of statements) run();
    };
  };
  const results = {
    empty: [] as number[],
    large: [] as number[],
    oldEmpty: [] as number[],
    oldLarge: [] as number[],
  };
  const cpu = {
    empty: [] as number[],
    large: [] as number[],
    oldEmpty: [] as number[],
    oldLarge: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of [
      ["empty", empty.scrape],
      ["large", large.scrape],
      ["oldEmpty", oldOn(empty.deps.db.sqlite)],
      ["oldLarge", oldOn(large.deps.db.sqlite)],
    ] as const) {
      const t = await timed(SCRAPES, fn);
      results[name].push(t.wall);
      cpu[name].push(t.cpu);
    }
  }
  const text = await large.scrape();
  const counted = large.deps.db.sqlite
    .query<{ queued: number; due: number }, [number]>(OLD_SCRAPE_SQL[0] as string)
    .get(Date.now());
  empty.close();
  large.close();

  const ms = (v: number) => `${v.toFixed(3)} ms`;
  const m = Object.fromEntries(
    Object.entries(results).map(([k, v]) => [k, median(v)]),
  ) as typeof results extends Record<infer K extends string, unknown> ? Record<K, number> : never;
  const c = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)])) as typeof m;
  console.log("\n/metrics scrape (median of rounds of medians; wall / CPU):");
  console.log(`  empty database (baseline)      ${ms(m.empty)} / ${ms(c.empty)}`);
  console.log(
    `  large database                 ${ms(m.large)} / ${ms(c.large)}   ratio ${(m.large / m.empty).toFixed(2)}`,
  );
  console.log("the statements the scrape ran before (counted over the tables):");
  console.log(`  empty database                 ${ms(m.oldEmpty)} / ${ms(c.oldEmpty)}`);
  console.log(
    `  large database                 ${ms(m.oldLarge)} / ${ms(c.oldLarge)}   ratio to the empty scrape ${(m.oldLarge / m.empty).toFixed(1)}`,
  );
  console.log(
    `  a scrape before on the large database ≈ ${ms(m.empty + m.oldLarge)}: ${((m.empty + m.oldLarge) / m.large).toFixed(1)}× the scrape now`,
  );
  console.log(`upgrade: migration 0024 over the large database took ${ms(upgradeMs)} once`);
  console.log(`start: rebuilding the queue gauges from the large outbox took ${ms(rebuildMs)}`);
  console.log("figures shown against counted:");
  console.log(`  ${line(text, "weir_delivery_queue_depth")}  (counted ${counted?.queued})`);
  console.log(`  ${line(text, "weir_delivery_due")}  (counted ${counted?.due}, a moment later)`);
  console.log(`  ${line(text, 'weir_issues{status="closed"}')}`);
  console.log(`  ${line(text, 'weir_delivery_breakers{state="open"}')}`);
}

/** Enqueue in batches of 50, claim 50 at a time, end each as delivered: CPU ms per delivery. */
function lives(keptFigures: boolean) {
  const db = openDatabase(tempDir(), "normal");
  runMigrations(db.sqlite, MIGRATIONS);
  // Before: no partial index of leased rows, and the gauge moves after each commit dropped.
  if (!keptFigures) db.sqlite.run("DROP INDEX deliveries_leased_idx");
  const repo = createDeliveryRepo(keptFigures ? db : { ...db, afterCommit: () => {} });
  repo.rebuildGauges();
  const rows = createDueRows(db, { table: "deliveries", key: "destination_key" });
  let seq = 0;
  const row = (now: number): DeliveryRow => {
    const item = {
      kind: "event" as const,
      organizationId: null,
      subjectId: `evt_${++seq}`,
      destinationKey: `dst_${seq % 20}`,
      maxRetries: 5,
    };
    return newDeliveryRow(item, `del_${seq}`, `msg_${seq}`, now, isoAt(now));
  };

  return {
    run(): number {
      const cpu = process.cpuUsage();
      for (let done = 0; done < LIVES; done += 50) {
        const now = Date.now();
        db.tx(() => {
          for (let i = 0; i < 50; i++) repo.insert(row(now));
        });
        const until = now + 60_000;
        const claimed = db.tx(() => rows.claim(now, until, 50, []), { durable: false });
        db.tx(() => {
          for (const r of claimed) {
            repo.finish({
              id: r.id as string,
              lockedUntil: until,
              wasDueAt: r.next_attempt_at as number,
              status: "delivered",
              attempts: 1,
              nextAttemptAt: null,
              statusCode: 200,
              errorType: null,
              errorCode: null,
              errorMessage: null,
              latencyMs: 3,
              updatedAt: isoAt(now),
            });
          }
        });
      }
      const used = process.cpuUsage(cpu);
      return (used.user + used.system) / 1000 / LIVES;
    },
    close: () => db.close(),
  };
}

function measureWrites() {
  const before = lives(false);
  const now = lives(true);
  const b: number[] = [];
  const a: number[] = [];
  before.run(); // warm-up
  now.run();
  for (let round = 0; round < ROUNDS; round++) {
    b.push(before.run());
    a.push(now.run());
  }
  before.close();
  now.close();
  const us = (v: number) => `${(v * 1000).toFixed(1)} µs`;
  console.log(
    `\na delivery's life (enqueue, claim, success), CPU per delivery, ${ROUNDS} interleaved rounds of ${LIVES}:`,
  );
  console.log(`  without them                     ${us(median(b))}`);
  console.log(
    `  with the gauges and leased index  ${us(median(a))}   ratio ${(median(a) / median(b)).toFixed(2)}`,
  );
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} (a shared machine: compare ratios)`,
);
try {
  await measureScrapes();
  measureWrites();
} finally {
  for (const dir of dirs) dir.remove();
}
