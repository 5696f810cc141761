#!/usr/bin/env bun
/**
 * What counting delivery health adds to recording an event delivery's attempt, against the
 * recording alone in the same run, in interleaved rounds (durability=full, group-commit batches).
 *
 *   bun scripts/bench/delivery-health.ts [--attempts 20000] [--rounds 5] [--batch 64]
 *
 * - "record": the delivery row finished and the attempt inserted (the delivery repo's real
 *   statements), then the event kind's listener in its savepoint, `--batch` per transaction;
 *   without, the listener does nothing; with, it is wrapped by `withHealthCounts` (one upsert of
 *   `delivery_health_days`).
 * - "listener": the listener alone in the same savepoints and batches, without and with.
 * CPU time (user + system) per attempt, medians of the rounds.
 */
import { parseArgs } from "node:util";
import { runMigrations } from "../../src/db/db.migrate.ts";
import { MIGRATIONS } from "../../src/db/db.migrations.ts";
import { openDatabase } from "../../src/db/db.open.ts";
import type {
  DeliveryAttempt,
  DeliveryKindHandlers,
  DeliveryRecord,
} from "../../src/delivery/delivery.ports.ts";
import {
  createDeliveryRepo,
  type DeliveryRow,
  toDeliveryRecord,
} from "../../src/delivery/delivery.repo.ts";
import { createBridgesRepo } from "../../src/routing/bridges.repo.ts";
import { createHealthRepo } from "../../src/routing/health.repo.ts";
import { withHealthCounts } from "../../src/routing/health.service.ts";
import { createSilentLogger } from "../../src/shared/logger.ts";
import { seedOrganization } from "../../src/test-utils/capture-fixtures.ts";
import { makeTempDir } from "../../src/test-utils/temp-dir.ts";
import { median } from "./lib/stats.ts";

const { values } = parseArgs({
  options: {
    attempts: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
    batch: { type: "string", default: "64" },
  },
});
const ATTEMPTS = Number(values.attempts);
const ROUNDS = Number(values.rounds);
const BATCH = Number(values.batch);
const DESTINATIONS = 10;
const NOW = Date.UTC(2026, 0, 1, 12);
const AT = new Date(NOW).toISOString();

const dir = makeTempDir("weir-bench-health-");
const db = openDatabase(dir.path, "full");
runMigrations(db.sqlite, MIGRATIONS);
seedOrganization(db.sqlite, "org");
db.sqlite.run(
  "INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at) VALUES ('src', 'org', 's', 'webhook', 's', ?, ?)",
  [AT, AT],
);
db.sqlite.run(
  "INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at) VALUES ('br', 'org', 'src', 'b', 'active', ?, ?)",
  [AT, AT],
);
for (let i = 0; i < DESTINATIONS; i++) {
  db.sqlite.run(
    `INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, max_retries,
       filters, created_at, updated_at) VALUES (?, 'br', 'org', ?, 'http', 'normal', 5, '[]', ?, ?)`,
    [`dest${i}`, `d${i}`, AT, AT],
  );
}
const repo = createDeliveryRepo(db);
const plain: DeliveryKindHandlers = { prepare: async () => ({ skip: "filtered" }), onAttempt() {} };
const counted = withHealthCounts(
  plain,
  { sqlite: { ...createHealthRepo(db), ...createBridgesRepo(db) } },
  createSilentLogger(),
);
const listener = (h: DeliveryKindHandlers) => h.onAttempt ?? (() => {});

let sequence = 0;
/** Due, leased deliveries to record an attempt of. */
function seed(n: number): DeliveryRow[] {
  const rows: DeliveryRow[] = [];
  db.tx(() => {
    for (let i = 0; i < n; i++) {
      const id = `d${sequence++}`;
      const row: DeliveryRow = {
        ...{ id, kind: "event", organization_id: "org", subject_id: `e${id}` },
        ...{
          destination_key: `dest${i % DESTINATIONS}`,
          webhook_id: `msg_${id}`,
          status: "pending",
        },
        ...{ attempts: 0, max_retries: 5, attempts_before_requeue: 0, next_attempt_at: NOW },
        ...{ locked_until: NOW + 1000, last_status_code: null, last_error_type: null },
        ...{ last_error_code: null, last_error_message: null, last_latency_ms: null },
        ...{ created_at: AT, updated_at: AT },
      };
      repo.insert(row);
      rows.push(row);
    }
  });
  db.sqlite.run("UPDATE deliveries SET locked_until = ?", [NOW + 1000]);
  return rows;
}

const attemptOf = (row: DeliveryRow): DeliveryAttempt => ({
  ...{ id: `a${row.id}`, deliveryId: row.id, attempt: 1, url: "http://sink/", method: "POST" },
  ...{ statusCode: 200, responseHeaders: [], responseBody: "ok", latencyMs: 3, errorType: null },
  ...{ errorCode: null, errorMessage: null, sent: null, createdAt: AT },
});

/** CPU µs per attempt of `work` over `count` items in batches. */
function cpuPer(count: number, work: (from: number, to: number) => void): number {
  const start = process.cpuUsage();
  for (let from = 0; from < count; from += BATCH) work(from, Math.min(count, from + BATCH));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count;
}

function record(h: DeliveryKindHandlers): number {
  const rows = seed(ATTEMPTS);
  const onAttempt = listener(h);
  return cpuPer(rows.length, (from, to) =>
    db.tx((tx) => {
      for (const row of rows.slice(from, to)) {
        const done = { ...row, status: "delivered", attempts: 1, next_attempt_at: null };
        repo.finish({
          ...{ id: row.id, lockedUntil: NOW + 1000, wasDueAt: NOW, status: "delivered" },
          ...{ attempts: 1, nextAttemptAt: null, statusCode: 200, errorType: null },
          ...{ errorCode: null, errorMessage: null, latencyMs: 3, updatedAt: AT },
        });
        const attempt = attemptOf(row);
        repo.insertAttempt(attempt);
        const delivery = toDeliveryRecord({ ...done, locked_until: null }, NOW);
        tx.savepoint((inner) => onAttempt(inner, delivery, attempt));
      }
    }),
  );
}

const records: DeliveryRecord[] = seed(BATCH).map((row) =>
  toDeliveryRecord({ ...row, status: "delivered", next_attempt_at: null }, NOW),
);
function listenerAlone(h: DeliveryKindHandlers): number {
  const onAttempt = listener(h);
  const attempt = attemptOf(records[0] as unknown as DeliveryRow);
  return cpuPer(ATTEMPTS * 4, (from, to) =>
    db.tx((tx) => {
      for (let i = from; i < to; i++) {
        const delivery = records[i % records.length] as DeliveryRecord;
        tx.savepoint((inner) => onAttempt(inner, delivery, attempt));
      }
    }),
  );
}

const figures = { record: [[], []], listener: [[], []] } as Record<string, [number[], number[]]>;
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, h] of [plain, counted].entries()) {
    figures.record?.[i]?.push(record(h));
    figures.listener?.[i]?.push(listenerAlone(h));
  }
}
for (const [name, [without, withCount]] of Object.entries(figures)) {
  const a = median(without);
  const b = median(withCount);
  console.log(
    `${name.padEnd(9)} without ${a.toFixed(2)} µs, with the count ${b.toFixed(2)} µs (+${(b - a).toFixed(2)})`,
  );
}
db.close();
dir.remove();
