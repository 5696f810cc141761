import { afterEach, beforeEach, expect, test } from "bun:test";
import { createDueRows, type DueRow } from "../db/db.due-rows.ts";
import { runMigrations } from "../db/db.migrate.ts";
import { MIGRATIONS } from "../db/db.migrations.ts";
import { type Db, openDatabase } from "../db/db.open.ts";
import { createIssuesRepo } from "../issues/issues.repo.ts";
import { isoAt } from "../shared/clock.ts";
import { seedOrganization } from "../test-utils/capture-fixtures.ts";
import { countedIssueFigures, countedOutboxFigures } from "../test-utils/outbox-figures.ts";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { closedBreaker } from "./delivery.breaker.model.ts";
import { newDeliveryRow } from "./delivery.outbox.ts";
import {
  createDeliveryRepo,
  type DeliveryRepo,
  type DeliveryRow,
  SCRAPE_SQL,
} from "./delivery.repo.ts";

/**
 * The /metrics figures of the outbox and of issues are kept by triggers, not counted per scrape:
 * after every kind of write they must equal what counting the tables says.
 */
const T0 = Date.UTC(2026, 0, 1, 0, 0, 0, 250);
const LEASE_MS = 10_000;
let dir: { path: string; remove(): void };
let db: Db;
let repo: DeliveryRepo;
let now = T0;

beforeEach(() => {
  dir = makeTempDir("weir-delivery-gauges-");
  db = openDatabase(dir.path);
  runMigrations(db.sqlite, MIGRATIONS);
  repo = createDeliveryRepo(db);
  repo.rebuildGauges();
  now = T0;
});
afterEach(() => {
  db.close();
  dir.remove();
});

const claimer = () => createDueRows(db, { table: "deliveries", key: "destination_key" });

/** The figures /metrics shows, and the same figures counted over the tables, at `now`. */
const expectExact = () => {
  const shown = repo.stats(now);
  const counted = countedOutboxFigures(db.sqlite, now);
  expect({ queued: shown.queued, due: shown.due }).toEqual({
    queued: counted.queued,
    due: counted.due,
  });
  const nonZero = shown.breakers
    .filter((b) => b.n > 0)
    .sort((a, b) => a.phase.localeCompare(b.phase));
  expect(nonZero).toEqual(counted.breakers);
  return { queued: shown.queued, due: shown.due };
};

let seq = 0;
const row = (subject: string, dueAt: number, key = "dst_a"): DeliveryRow =>
  newDeliveryRow(
    {
      kind: "event",
      organizationId: null,
      subjectId: subject,
      destinationKey: key,
      maxRetries: 3,
      dueAt,
    },
    `del_${++seq}`,
    `msg_${seq}`,
    now,
    isoAt(now),
  );

/** Ends a claimed row's attempt as the worker does: `next` null ends it, a time retries it. */
const finish = (claimed: DueRow, lockedUntil: number, next: number | null, status: string) =>
  db.tx(() =>
    repo.finish({
      id: claimed.id as string,
      lockedUntil,
      wasDueAt: claimed.next_attempt_at as number,
      status: status as "delivered",
      attempts: 1,
      nextAttemptAt: next,
      statusCode: null,
      errorType: null,
      errorCode: null,
      errorMessage: null,
      latencyMs: null,
      updatedAt: isoAt(now),
    }),
  );

test("queue depth and due now stay exact through enqueue, claim, lease expiry, success, failure, retry, requeue, deletion and rollbacks", () => {
  expect(expectExact()).toEqual({ queued: 0, due: 0 });
  // Enqueue: three due now, one later this second, one in ten seconds.
  db.tx(() => {
    for (const subject of ["e1", "e2", "e3"]) repo.insert(row(subject, now));
    repo.insert(row("e4", now + 500));
    repo.insert(row("e5", now + 10_000, "dst_b"));
  });
  expect(expectExact()).toEqual({ queued: 5, due: 3 });

  // A rolled-back transaction and an undone savepoint leave no trace.
  expect(() =>
    db.tx(() => {
      repo.insert(row("gone", now));
      throw new Error("rolled back");
    }),
  ).toThrow("rolled back");
  db.tx((tx) => {
    expect(() =>
      tx.savepoint(() => {
        repo.insert(row("gone too", now));
        repo.forgetSubjects("event", ["e1"]);
        throw new Error("undone");
      }),
    ).toThrow("undone");
  });
  expect(expectExact()).toEqual({ queued: 5, due: 3 });

  // Claim two: leased rows are not due.
  const rows = claimer();
  const leaseEnd = now + LEASE_MS;
  const claimed = db.tx(() => rows.claim(now, leaseEnd, 2, []));
  expect(claimed).toHaveLength(2);
  expect(expectExact()).toEqual({ queued: 5, due: 1 });

  // Later this second: e4 falls due.
  now += 600;
  expect(expectExact()).toEqual({ queued: 5, due: 2 });

  // Success ends one; a failure with a retry moves the other to later.
  const [first, second] = claimed as [DueRow, DueRow];
  expect(finish(first, leaseEnd, null, "delivered")).toBe(true);
  expect(finish(second, leaseEnd, now + 3_000, "retrying")).toBe(true);
  expect(expectExact()).toEqual({ queued: 4, due: 2 });

  // Claim again, then let the lease run out (a crashed or stuck worker): due again.
  const lease2 = now + LEASE_MS;
  const again = db.tx(() => rows.claim(now, lease2, 1, []));
  expect(again).toHaveLength(1);
  expect(expectExact()).toEqual({ queued: 4, due: 1 });
  // An extension moves the lease; giving a row back makes it due at once.
  expect(db.tx(() => rows.extend(again[0]?.id as string, lease2, lease2 + 1))).toBe(true);
  expect(expectExact()).toEqual({ queued: 4, due: 1 });
  now = lease2 + 2;
  // The lease ran out, and the retry (3 s) and the row due in 10 s fell due meanwhile.
  expect(expectExact()).toEqual({ queued: 4, due: 4 });

  // A final failure ends a row; the breaker-wait sends another beyond this second.
  const lease3 = now + LEASE_MS;
  const [a, b] = db.tx(() => rows.claim(now, lease3, 2, [])) as [DueRow, DueRow];
  expect(finish(a, lease3, null, "failed")).toBe(true);
  expect(finish(b, lease3, now + 1_000, "pending")).toBe(true);
  // A finish after the lease was lost writes nothing, and moves nothing.
  expect(finish(a, lease3, now + 1_000, "retrying")).toBe(false);
  expect(expectExact()).toEqual({ queued: 3, due: 2 });
  const released = db.tx(() => rows.claim(now, now + LEASE_MS, 1, []));
  expect(db.tx(() => rows.release(released[0]?.id as string, now + LEASE_MS))).toBe(true);
  expect(expectExact()).toEqual({ queued: 3, due: 2 });

  // Requeue the failed row: queued and due again.
  const failedSubject = db.sqlite
    .query<{ subject_id: string }, [string]>("SELECT subject_id FROM deliveries WHERE id = ?")
    .get(a.id as string)?.subject_id as string;
  expect(db.tx(() => repo.requeue("event", failedSubject, false, now))).toBe(1);
  expect(expectExact()).toEqual({ queued: 4, due: 3 });
  // Requeue with ended ones too (the delivered one).
  const deliveredSubject = db.sqlite
    .query<{ subject_id: string }, [string]>("SELECT subject_id FROM deliveries WHERE id = ?")
    .get(first.id as string)?.subject_id as string;
  expect(db.tx(() => repo.requeue("event", deliveredSubject, true, now))).toBe(1);
  expect(expectExact()).toEqual({ queued: 5, due: 4 });

  // Retention deletes subjects: their deliveries leave the figures, ended or not.
  expect(db.tx(() => repo.forgetSubjects("event", ["e1", "e2", "e5"]))).toBe(3);
  expect(expectExact()).toEqual({ queued: 2, due: 1 });

  // Much later, everything left is due; then everything ends.
  now += 3_600_000;
  expect(expectExact()).toEqual({ queued: 2, due: 2 });
  // A restart: the gauges are rebuilt from the table alone, and follow the writes after it.
  const restarted = createDeliveryRepo(db);
  restarted.rebuildGauges();
  expect(restarted.stats(now)).toEqual(repo.stats(now));
  repo = restarted;
  db.tx(() => repo.insert(row("after restart", now + 5_000)));
  expect(expectExact()).toEqual({ queued: 3, due: 2 });
  db.tx(() => repo.forgetSubjects("event", ["e3", "e4", "after restart"]));
  expect(expectExact()).toEqual({ queued: 0, due: 0 });
});

test("breakers by phase stay exact through opening, closing, a rollback and forgetting", () => {
  const open = { ...closedBreaker(), phase: "open" as const };
  db.tx(() => {
    repo.saveBreaker("dst_a", closedBreaker(), now);
    repo.saveBreaker("dst_b", closedBreaker(), now);
  });
  expectExact();
  db.tx(() => repo.saveBreaker("dst_a", open, now));
  expectExact();
  expect(() =>
    db.tx(() => {
      repo.saveBreaker("dst_b", open, now);
      throw new Error("rolled back");
    }),
  ).toThrow();
  expectExact();
  db.tx(() => repo.forgetBreaker("dst_a"));
  expect(expectExact()).toBeDefined();
  expect(repo.stats(now).breakers.find((b) => b.phase === "closed")?.n).toBe(1);
  expect(repo.stats(now).breakers.find((b) => b.phase === "open")?.n ?? 0).toBe(0);
});

test("issues by status stay exact through open, work in progress, close, a rollback and cascades from a deleted destination and organization", () => {
  const issues = createIssuesRepo(db);
  const expectIssues = () => {
    const shown = issues
      .countByStatus()
      .filter((c) => c.n > 0)
      .sort((a, b) => a.status.localeCompare(b.status));
    expect(shown).toEqual(countedIssueFigures(db.sqlite) as typeof shown);
    return shown.reduce((sum, c) => sum + c.n, 0);
  };
  seedOrganization(db.sqlite, "org_1");
  const at = isoAt(now);
  db.sqlite.run(
    `INSERT INTO sources (id, organization_id, name, type, slug, created_at, updated_at)
     VALUES ('src_1', 'org_1', 's', 'webhook', 's1', ?1, ?1)`,
    [at],
  );
  db.sqlite.run(
    `INSERT INTO bridges (id, organization_id, source_id, name, status, created_at, updated_at)
     VALUES ('brg_1', 'org_1', 'src_1', 'b', 'active', ?1, ?1)`,
    [at],
  );
  for (const id of ["dst_1", "dst_2"]) {
    db.sqlite.run(
      `INSERT INTO destinations (id, bridge_id, organization_id, name, type, priority, max_retries,
         filters, created_at, updated_at)
       VALUES (?1, 'brg_1', 'org_1', ?1, 'webhook', 'normal', 3, '[]', ?2, ?2)`,
      [id, at],
    );
  }
  const issue = (id: string, destinationId: string, errorCode: string) => ({
    id,
    organizationId: "org_1",
    bridgeId: "brg_1",
    destinationId,
    status: "open" as const,
    errorType: "http_error",
    errorCode,
    errorMessage: "boom",
    occurrenceCount: 1,
    firstOccurrenceAt: at,
    lastOccurrenceAt: at,
    openedAt: at,
    resolvedAt: null,
    lastSuccessAt: null,
    createdAt: at,
    updatedAt: at,
  });
  db.tx(() => {
    issues.insert(issue("iss_1", "dst_1", "http_500"));
    issues.insert(issue("iss_2", "dst_1", "http_502"));
    issues.insert(issue("iss_3", "dst_2", "http_500"));
  });
  expect(expectIssues()).toBe(3);
  db.tx(() => {
    issues.update({ ...issue("iss_1", "dst_1", "http_500"), status: "work_in_progress" });
    issues.update({ ...issue("iss_2", "dst_1", "http_502"), status: "closed", resolvedAt: at });
  });
  expect(expectIssues()).toBe(3);
  expect(() =>
    db.tx(() => {
      issues.update({ ...issue("iss_3", "dst_2", "http_500"), status: "closed", resolvedAt: at });
      throw new Error("rolled back");
    }),
  ).toThrow();
  expect(expectIssues()).toBe(3);
  // A deleted destination takes its issues with it (cascade), then the organization the rest.
  db.tx(() => db.sqlite.run("DELETE FROM destinations WHERE id = 'dst_1'"));
  expect(expectIssues()).toBe(1);
  db.tx(() => db.sqlite.run("DELETE FROM organizations WHERE id = 'org_1'"));
  expect(expectIssues()).toBe(0);
});

test("a scrape reads no queued row: only this second's later rows and the leased ones", () => {
  // Every read of `deliveries` the scrape makes is bounded by an index range on both sides or
  // goes through the partial index of leased rows; counting the outbox itself reads every row.
  const plan = db.sqlite
    .query<{ detail: string }, [number, number]>(`EXPLAIN QUERY PLAN ${SCRAPE_SQL}`)
    .all(now, now + 1000)
    .map((step) => step.detail)
    .filter((detail) => detail.includes(" deliveries "));
  expect(plan.length).toBe(2);
  for (const detail of plan) {
    const bounded = /\(next_attempt_at>\? AND next_attempt_at<\?\)/.test(detail);
    const leased = detail.includes("deliveries_leased_idx");
    expect({ detail, bounded: bounded || leased }).toEqual({ detail, bounded: true });
  }
});
