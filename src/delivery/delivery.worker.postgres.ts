import { createPostgresDueQueue, type PostgresLease } from "../db/db.due-queue.postgres.ts";
import { createPostgresDueRows } from "../db/db.due-rows.postgres.ts";
import type { DueTable } from "../db/db.due-rows.ts";
import { type BatchOutcome, createPostgresGroupCommit } from "../db/db.group-commit.postgres.ts";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { SharedDeps } from "../deps.ts";
import { isoAt } from "../shared/clock.ts";
import { createAttemptRunner, type Recording } from "./delivery.attempt.ts";
import {
  type Admission,
  admit,
  type BreakerState,
  record,
  releaseStaleProbe,
} from "./delivery.breaker.model.ts";
import { createPostgresBreakers } from "./delivery.breaker.postgres.ts";
import { createFailureLog, failedTry } from "./delivery.failure-log.ts";
import { createAttemptCounts } from "./delivery.metrics.ts";
import type {
  AttemptObserverPostgres,
  DeliveryAttempt,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryRecord,
} from "./delivery.ports.ts";
import { deliveryOfPgRow } from "./delivery.postgres.ts";
import { toDeliveryRecord } from "./delivery.repo.ts";
import type { DeliveryStore } from "./delivery.store.ts";
import { leaseFor } from "./delivery.worker.ts";

/** PostgreSQL's codes for a deadlock and a serialization failure: try again, and it goes. */
const LOCK_CONFLICTS = new Set(["40P01", "40001"]);
const isLockConflict = (error: unknown) =>
  LOCK_CONFLICTS.has(String((error as { errno?: unknown } | null)?.errno));

/** Most attempt outcomes in one transaction. */
const MAX_OUTCOMES_PER_COMMIT = 64;

/**
 * An attempt's outcome, with whether its breaker changes (decided before the transaction), when
 * it came, and its lease's end, the token its finishing write checks.
 */
type Outcome = Recording<PostgresLease> & { breakerWrite: boolean; at: number; until: number };

export type PostgresOutboxDeps = Pick<
  SharedDeps,
  "clock" | "ids" | "logger" | "bus" | "outbound" | "scheduler" | "config"
> & { postgres: PostgresDb };

/** The outbox's claims: one key per destination, organizations sharing the slots. */
export const DELIVERY_DUE_TABLE: DueTable = {
  table: "deliveries",
  key: "destination_key",
  group: "organization_id",
};

/**
 * The outbox's sending half on PostgreSQL, one per node: the same attempt as on SQLite
 * (delivery.attempt.ts) over claims shared by every node (`FOR UPDATE SKIP LOCKED`, leases on the
 * server's clock, so a killed node's rows are sent by another once its leases lapse, with the
 * webhook-id they were given when enqueued). Each outcome commits in its own transaction with
 * its attempt, the destination's breaker (changed under the row's lock, so one half-open probe
 * goes out across nodes) and the kind's and observers' own writes (`onAttemptPostgres`).
 */
export function createPostgresDeliveryWorker(
  deps: PostgresOutboxDeps,
  store: DeliveryStore,
  kinds: ReadonlyMap<DeliveryKind, DeliveryKindHandlers>,
  observers: readonly AttemptObserverPostgres[],
  options: { node?: string } = {},
) {
  const { sql } = deps.postgres;
  const log = deps.logger.child({ scope: "delivery" });
  const logFailure = createFailureLog(log, deps.clock);
  const openMs = deps.config.breaker_open_ms;
  const leaseMs = leaseFor(deps.config);
  const breakers = createPostgresBreakers({ sql, clock: deps.clock });
  /** Destinations whose breaker this node last saw open or half-open (health reads it). */
  const openKeys = new Set<string>();
  const noteBreaker = (key: string, state: BreakerState) => {
    if (state.phase === "closed") openKeys.delete(key);
    else openKeys.add(key);
  };

  /**
   * This node's outcomes that change a breaker and wait for their batch, by destination: its
   * admissions count them at once, as a single server's would, and the row when they commit.
   */
  const pendingOutcomes = new Map<string, Set<Outcome>>();
  const withPending = (key: string, state: BreakerState): BreakerState => {
    let folded = state;
    for (const item of pendingOutcomes.get(key) ?? []) {
      folded = record(folded, item.breakerSuccess === true, item.at, openMs);
    }
    return folded;
  };
  const forgetPending = (item: Outcome) => {
    const pending = pendingOutcomes.get(item.row.destination_key);
    pending?.delete(item);
    if (pending?.size === 0) pendingOutcomes.delete(item.row.destination_key);
  };

  /** Admission from the shared state; a change (a probe going out) is decided under the row's lock. */
  const admitted = async (row: { destination_key: string }, now: number): Promise<Admission> => {
    const key = row.destination_key;
    const known = withPending(key, await breakers.read(key));
    const quick = admit(releaseStaleProbe(known, now, openMs), now);
    if (quick.state === known) return quick;
    let decided: Admission = quick;
    await sql.begin((tx) =>
      breakers.update(
        tx,
        key,
        (current) => {
          decided = admit(releaseStaleProbe(current, now, openMs), now);
          return decided.state;
        },
        now,
      ),
    );
    noteBreaker(key, decided.state);
    return decided;
  };

  /** The kind's owner, then every observer, each in a savepoint: one failing undoes only itself. */
  const hear = async (
    tx: PostgresTx,
    delivery: DeliveryRecord,
    listeners: ((inner: PostgresTx) => Promise<void>)[],
  ) => {
    for (const listener of listeners) {
      try {
        await tx.savepoint((inner) => listener(inner));
      } catch (error) {
        // Waiting in a circle with another transaction (a batch here or on another node) is
        // no fault of the listener: the whole outcome is recorded again, alone.
        if (isLockConflict(error)) throw error;
        log.error("a delivery attempt's listener failed; its writes were undone", {
          id: delivery.id,
          error,
        });
      }
    }
  };
  const listenersOf = (delivery: DeliveryRecord, attempt: DeliveryAttempt | null) => {
    const handlers = kinds.get(delivery.kind);
    if (!attempt) {
      const onSkipped = handlers?.onSkippedPostgres;
      return onSkipped ? [(tx: PostgresTx) => onSkipped(tx, delivery)] : [];
    }
    const onAttempt = handlers?.onAttemptPostgres;
    return [...(onAttempt ? [onAttempt] : []), ...observers].map(
      (listener) => (tx: PostgresTx) => listener(tx, delivery, attempt),
    );
  };

  const attempts = createAttemptCounts();

  /**
   * Whether recording this outcome would leave the breaker as it is (a success on a closed,
   * healthy breaker), read from the cached state before the transaction: such a success writes
   * nothing, so a destination's attempts do not all queue on its breaker row. The cache may be
   * up to a second behind another node's writes, as admissions already are.
   */
  const leavesBreakerAsItIs = async (key: string, success: boolean, now: number) => {
    const known = await breakers.read(key);
    return (
      known.phase === "closed" &&
      JSON.stringify(record(known, success, now, openMs)) === JSON.stringify(known)
    );
  };

  /**
   * One outcome in `tx` (the batch's savepoint for it, or a transaction of its own), its breaker
   * aside: `breaker` says whether its outcome is to be recorded there (writeBreakers).
   */
  const recordOne = async (
    tx: PostgresTx,
    item: Outcome,
  ): Promise<{ delivery: DeliveryRecord | null; breaker: boolean }> => {
    const { row, next, until } = item;
    const now = deps.clock.now();
    const breaker = item.breakerWrite;
    const stored = await store.finish(tx, {
      id: row.id,
      lockedUntil: until,
      wasDueAt: row.next_attempt_at,
      status: next.status as DeliveryRecord["status"],
      attempts: next.attempts,
      nextAttemptAt: next.next_attempt_at,
      statusCode: next.last_status_code,
      errorType: next.last_error_type,
      errorCode: next.last_error_code,
      errorMessage: next.last_error_message,
      latencyMs: next.last_latency_ms,
      updatedAt: isoAt(now),
    });
    if (!stored && !(await tx`SELECT 1 FROM deliveries WHERE id = ${row.id}`).length) {
      return { delivery: null, breaker: false }; // deleted meanwhile (retention): nothing to record
    }
    if (item.attempt) await store.insertAttempt(tx, item.attempt);
    if (!stored) {
      log.warn("lease lost before the attempt was recorded; the new owner decides", {
        id: row.id,
      });
      return { delivery: null, breaker };
    }
    const updated = toDeliveryRecord(
      { ...row, ...next, locked_until: null, updated_at: isoAt(now) },
      now,
    );
    if (item.attempt || updated.status === "delivered") {
      await hear(tx, updated, listenersOf(updated, item.attempt));
    }
    return { delivery: updated, breaker };
  };

  /**
   * The breakers the outcomes change, last in the transaction and in key order: each row is
   * locked only until the commit, and two nodes' batches never wait on each other in a circle.
   */
  const writeBreakers = async (tx: PostgresTx, outcomes: readonly Outcome[]) => {
    const byKey = new Map<string, boolean[]>();
    for (const item of outcomes) {
      if (item.breakerSuccess === null) continue;
      const key = item.row.destination_key;
      byKey.set(key, [...(byKey.get(key) ?? []), item.breakerSuccess]);
    }
    const now = deps.clock.now();
    for (const key of [...byKey.keys()].sort()) {
      const results = byKey.get(key) ?? [];
      const state = await breakers.update(
        tx,
        key,
        (current) => results.reduce((s, success) => record(s, success, now, openMs), current),
        now,
      );
      noteBreaker(key, state);
    }
    // The row (and this node's copy of it) now holds them.
    for (const item of outcomes) forgetPending(item);
  };

  /**
   * The outcomes finished in one turn (or while the previous batch commits) commit together,
   * each in a savepoint of its own, in destination order (a destination's shared rows, such as
   * its health day, are taken in the same order by every node's batches): one WAL flush per
   * batch, and one connection per node for them, so a burst to one destination no longer holds
   * the pool queued on its rows. An outcome undone in the batch (a deadlock with another node's)
   * is recorded again in a transaction of its own.
   */
  const outcomesCommit = createPostgresGroupCommit<Outcome, DeliveryRecord | null>({
    sql,
    maxBatch: MAX_OUTCOMES_PER_COMMIT,
    orderBy: (item) => item.row.destination_key,
    async commit(tx, batch) {
      const results: BatchOutcome<DeliveryRecord | null>[] = [];
      const changing: Outcome[] = [];
      for (const item of batch) {
        try {
          const { delivery, breaker } = await tx.savepoint((inner) => recordOne(inner, item));
          if (breaker) changing.push(item);
          results.push({ result: delivery });
        } catch (error) {
          results.push({ failed: error });
        }
      }
      await writeBreakers(tx, changing);
      return results;
    },
    alone: (item) =>
      sql.begin(async (tx) => {
        const { delivery, breaker } = await recordOne(tx, item);
        if (breaker) await writeBreakers(tx, [item]);
        return delivery;
      }),
  });

  const commit = async (item: Recording<PostgresLease>): Promise<DeliveryRecord | null> => {
    const success = item.breakerSuccess;
    const key = item.row.destination_key;
    const now = deps.clock.now();
    const breakerWrite = success !== null && !(await leavesBreakerAsItIs(key, success, now));
    const outcome: Outcome = { ...item, breakerWrite, at: now, until: await item.lease.settle() };
    if (breakerWrite) {
      const pending = pendingOutcomes.get(key) ?? new Set<Outcome>();
      pendingOutcomes.set(key, pending.add(outcome));
    }
    return outcomesCommit.submit(outcome).finally(() => forgetPending(outcome));
  };

  const uncommitted = new Set<Promise<unknown>>();
  /** The queue's slot frees at once; the row keeps its lease, and the attempt its share of concurrency, until the commit. */
  const recordLater = (item: Recording<PostgresLease>): void => {
    const committing = commit(item)
      .then((delivery) => {
        if (item.next.next_attempt_at !== null) queue.notify();
        const attempt = item.attempt;
        if (!delivery || !attempt) return;
        attempts.count(delivery.kind, attempt);
        if (attempt.errorType !== null) logFailure(failedTry(delivery, attempt));
        deps.bus.publish("delivery.attempted", { delivery, attempt });
      })
      .catch((error) =>
        log.error("recording a delivery attempt failed; the row runs again when its lease ends", {
          id: item.row.id,
          error,
        }),
      );
    uncommitted.add(committing);
    committing.finally(() => {
      uncommitted.delete(committing);
      queue.notify(); // its slot counts again (concurrency below)
    });
  };

  const run = createAttemptRunner<PostgresLease>(deps, {
    kinds,
    admit: admitted,
    record: recordLater,
  });
  const node = options.node ?? crypto.randomUUID();
  const queue = createPostgresDueQueue({
    name: "delivery",
    store: createPostgresDueRows({
      sql,
      table: DELIVERY_DUE_TABLE,
      node,
      leaseMs,
      // Due times are the app's (retries, breaker waits): judged by the clock that set them.
      dueNow: () => deps.clock.now(),
    }),
    table: DELIVERY_DUE_TABLE,
    scheduler: deps.scheduler,
    logger: deps.logger,
    run: (row, lease) => run(deliveryOfPgRow(row), lease),
    leaseMs,
    // An attempt holds its slot until its outcome is written: what a crash can have sent and
    // not recorded (and so be sent again) stays within delivery_concurrency, however slow commits are.
    concurrency: () => deps.config.delivery_concurrency - uncommitted.size,
    perKey: deps.config.delivery_per_destination,
    // Bridged by the cluster: the other nodes' queues claim what this node enqueued at once.
    announce: { send: () => deps.bus.publish("delivery.due", { node }), clock: deps.clock },
  });

  return {
    queue,
    node,
    breakerOpen: (key: string) => openKeys.has(key),
    /** As on SQLite (delivery.outbox.ts): an operator's retry lets an open breaker's probe go now. */
    async probeNow(tx: PostgresTx, key: string, now: number) {
      const state = await breakers.update(
        tx,
        key,
        (s) => (s.phase === "open" && (s.openUntil ?? now) > now ? { ...s, openUntil: now } : s),
        now,
      );
      noteBreaker(key, state);
    },
    /** Forgets a destination's breaker on every node (the row) and on this one (its copy). */
    async forgetBreaker(key: string) {
      await breakers.forget(key);
      openKeys.delete(key);
    },
    /** Reads which breakers are not closed, so health on this node sees other nodes' breakers. */
    async refreshOpenBreakers() {
      const rows = await sql<{ destination_key: string }[]>`
        SELECT destination_key FROM delivery_breakers WHERE phase <> 'closed'`;
      openKeys.clear();
      for (const row of rows) openKeys.add(row.destination_key);
    },
    outcomes: attempts.list,
    async stop(): Promise<void> {
      await queue.stop();
      await Promise.all([...uncommitted]);
      await outcomesCommit.close();
    },
  };
}

export type PostgresDeliveryWorker = ReturnType<typeof createPostgresDeliveryWorker>;
