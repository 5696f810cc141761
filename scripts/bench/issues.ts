#!/usr/bin/env bun
/**
 * What grouping failures into issues adds to recording a delivery attempt, against the recording
 * alone measured in the same run, in interleaved rounds (durability=full, group-commit batches).
 *
 *   bun scripts/bench/issues.ts [--attempts 4000] [--rounds 5] [--batch 64]
 *
 * - "baseline": what the outbox writes for every attempt anyway: the attempt row (the real
 *   statement of the delivery repo) and the delivery row's new state, `--batch` per transaction.
 * - "+ success": the same, plus the issues room's observer for a 2xx (the last_success_at
 *   UPDATE through the partial index; no issue is open, the common case).
 * - "+ success, issue open": the same with an open issue on the destination (a recovering one).
 * - "+ failure": a failed attempt joining its issue (destination lookup, issue read and update,
 *   the sample insert and trim).
 *
 * Each ratio is that variant's µs per attempt ÷ the baseline's. The HTTP request of a real attempt
 * is not in the baseline, so the share of a real delivery is lower still.
 */
import { parseArgs } from "node:util";
import { runMigrations } from "../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../src/db/db.migrations.ts";
import { openDatabase } from "../../src/db/db.open.ts";
import type { DeliveryAttempt, DeliveryRecord } from "../../src/delivery/delivery.ports.ts";
import { createDeliveryRepo } from "../../src/delivery/delivery.repo.ts";
import { type GroupingDeps, observeAttempt } from "../../src/issues/issues.grouping.ts";
import { createIssuesRepo } from "../../src/issues/issues.repo.ts";
import { createBridgesRepo } from "../../src/routing/bridges.repo.ts";
import { createSilentLogger } from "../../src/shared/logger.ts";
import { makeTempDir } from "../../src/test-utils/temp-dir.ts";
import { formatRatio, median, ratio } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    attempts: { type: "string", default: "4000" },
    rounds: { type: "string", default: "5" },
    batch: { type: "string", default: "64" },
  },
});
const ATTEMPTS = Number(values.attempts);
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);

const dir = makeTempDir("weir-bench-issues-");
const db = openDatabase(dir.path, "full");
runMigrations(db.sqlite, MIGRATIONS);
const now = new Date().toISOString();
db.sqlite.run(
  "INSERT INTO organizations (id, name, plan, created_at, updated_at) VALUES ('org', 'Bench', 'team', ?1, ?1)",
  [now],
);
db.sqlite.run(
  `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
   VALUES ('src', 'org', 'shop', 'webhook', 'shop', ?1, ?1)`,
  [now],
);
db.sqlite.run(
  `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
   VALUES ('brg', 'org', 'src', 'orders', 'active', ?1, ?1)`,
  [now],
);
for (const id of ["dst_ok", "dst_recovering", "dst_down"]) {
  db.sqlite.run(
    `INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, url, max_retries,
       filters, created_at, updated_at)
     VALUES (?1, 'brg', 'org', ?1, 'http', 'normal', 'http://127.0.0.1/', 15, '[]', ?2, ?2)`,
    [id, now],
  );
}
const deliveryRepo = createDeliveryRepo(db);
const finishRow = db.sqlite.prepare(
  "UPDATE deliveries SET status = ?, attempts = attempts + 1, updated_at = ? WHERE id = ?",
);
let seq = 0;
const ids = { uuid: () => Bun.randomUUIDv7(), base62: () => `${seq++}` };
const clock = { now: () => Date.now() };
const bridges = createBridgesRepo(db);
const grouping: GroupingDeps = {
  repo: createIssuesRepo(db),
  clock,
  ids,
  logger: createSilentLogger(),
  describeDestination: (id) => bridges.describeDestination(id),
  listeners: [],
};

function delivery(destinationKey: string): DeliveryRecord {
  const id = `dlv_${destinationKey}`;
  db.sqlite.run(
    `INSERT OR IGNORE INTO deliveries (id, kind, organization_id, subject_id, destination_key,
       webhook_id, status, attempts, max_retries, created_at, updated_at)
     VALUES (?1, 'event', 'org', 'evt', ?2, 'msg_1', 'pending', 0, 15, ?3, ?3)`,
    [id, destinationKey, now],
  );
  return {
    id,
    kind: "event",
    organizationId: "org",
    subjectId: "evt",
    destinationKey,
    webhookId: "msg_1",
    status: "retrying",
    attempts: 0,
    maxRetries: 15,
    nextAttemptAt: null,
    lastStatusCode: null,
    lastErrorType: null,
    lastErrorCode: null,
    lastErrorMessage: null,
    lastLatencyMs: null,
    createdAt: now,
    updatedAt: now,
  };
}
const deliveries = {
  ok: delivery("dst_ok"),
  recovering: delivery("dst_recovering"),
  down: delivery("dst_down"),
};

function attemptOf(d: DeliveryRecord, failed: boolean): DeliveryAttempt {
  return {
    id: ids.uuid(),
    deliveryId: d.id,
    attempt: 1,
    url: "http://127.0.0.1/hook",
    method: "POST",
    statusCode: failed ? 500 : 200,
    responseHeaders: [["content-type", "text/plain"]],
    responseBody: failed ? "upstream unavailable" : "ok",
    latencyMs: 3,
    errorType: failed ? "http_error" : null,
    errorCode: failed ? "500" : null,
    errorMessage: failed ? "HTTP 500" : null,
    createdAt: new Date().toISOString(),
  };
}

type Variant = "baseline" | "success" | "recovering" | "failure";

/** µs per attempt of recording `ATTEMPTS` attempts, with or without the issues observer. */
function run(variant: Variant): number {
  const d =
    variant === "failure"
      ? deliveries.down
      : variant === "recovering"
        ? deliveries.recovering
        : deliveries.ok;
  const failed = variant === "failure";
  const start = performance.now();
  for (let from = 0; from < ATTEMPTS; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, ATTEMPTS - from) }, () =>
      attemptOf(d, failed),
    );
    db.tx((tx) => {
      for (const attempt of batch) {
        deliveryRepo.insertAttempt(attempt);
        finishRow.run(failed ? "retrying" : "delivered", attempt.createdAt, d.id);
        if (variant !== "baseline") observeAttempt(tx, d, attempt, grouping);
      }
    });
  }
  return ((performance.now() - start) * 1000) / ATTEMPTS;
}

// One open issue on the recovering destination (opened before its successes).
db.tx((tx) =>
  observeAttempt(tx, deliveries.recovering, attemptOf(deliveries.recovering, true), grouping),
);
const variants: Variant[] = ["baseline", "success", "recovering", "failure"];
for (const v of variants) run(v); // warm-up
const results = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<
  Variant,
  number[]
>;
for (let r = 0; r < ROUNDS; r++) for (const v of variants) results[v].push(run(v));

const base = median(results.baseline);
const line = (label: string, v: Variant) => {
  const us = median(results[v]);
  const share = v === "baseline" ? "" : `  ${formatRatio(ratio(us, base))} of baseline`;
  console.log(`${label.padEnd(36)} ${us.toFixed(1).padStart(6)} µs / attempt${share}`);
};
console.error(`${ATTEMPTS} attempts/round, ${ROUNDS} rounds, batch ${BATCH}, durability=full`);
line("baseline (attempt + delivery row)", "baseline");
line("+ issues observer, success", "success");
line("+ issues observer, success, issue open", "recovering");
line("+ issues observer, failure joins issue", "failure");
db.close();
dir.remove();
