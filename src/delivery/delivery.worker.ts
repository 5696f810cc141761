import { createDueQueue, type DueQueue, type Lease } from "../db/db.due-queue.ts";
import { createGroupCommit } from "../db/db.group-commit.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { AppDeps } from "../deps.ts";
import { isoAt } from "../shared/clock.ts";
import { createAttemptRunner, finishingWrite, type Recording } from "./delivery.attempt.ts";
import { admit, type BreakerState, record, releaseStaleProbe } from "./delivery.breaker.model.ts";
import { createFailureLog, failedTry } from "./delivery.failure-log.ts";
import {
  deliveryLimit,
  giveWayPolicy,
  type IngestPressure,
  NO_PRESSURE,
  observeBatch,
} from "./delivery.give-way.model.ts";
import { createAttemptCounts } from "./delivery.metrics.ts";
import type {
  AttemptObserver,
  DeliveryAttempt,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryRecord,
} from "./delivery.ports.ts";
import { type DeliveryRepo, type DeliveryRow, toDeliveryRecord } from "./delivery.repo.ts";

export type OutboxDeps = Pick<
  AppDeps,
  "db" | "clock" | "ids" | "logger" | "bus" | "outbound" | "scheduler" | "config"
>;

/**
 * The outbox's sending half: a due-queue over `deliveries` keyed by destination_key claims due
 * rows with a lease; each row asks its destination's breaker, has its kind build the request,
 * is signed when the kind gives secrets, goes through the one outbound sender, and its attempt,
 * new state, breaker outcome and the kind's own writes commit in ONE transaction, shared with
 * the other attempts that ended in the same turn (group commit: one fsync per batch).
 */
export function createDeliveryWorker(
  deps: OutboxDeps,
  repo: DeliveryRepo,
  kinds: ReadonlyMap<DeliveryKind, DeliveryKindHandlers>,
  observers: readonly AttemptObserver[] = [],
) {
  const log = deps.logger.child({ scope: "delivery" });
  const logFailure = createFailureLog(log, deps.clock);
  const openMs = deps.config.breaker_open_ms;
  const giveWay = giveWayPolicy(
    deps.config.delivery_concurrency,
    deps.config.delivery_give_way_floor,
  );
  let pressure: IngestPressure = NO_PRESSURE;

  /** Breaker states an attempt batch moved, written once per destination at the batch's end. */
  type BreakerMoves = Map<string, BreakerState>;

  const writeRecording = (
    item: Recording<Lease>,
    tx: TxHandle,
    moved: BreakerMoves,
  ): DeliveryRecord | null => {
    const now = deps.clock.now();
    const { row, next } = item;
    const stored = repo.finish(finishingWrite(item, item.lease.until, now));
    if (!stored && !repo.find(row.id)) return null; // deleted meanwhile (retention): nothing to record
    if (item.attempt) repo.insertAttempt(item.attempt);
    if (item.breakerSuccess !== null) {
      const key = row.destination_key;
      const state = moved.get(key) ?? repo.breaker(key);
      moved.set(key, record(state, item.breakerSuccess, now, openMs));
    }
    const updated = toDeliveryRecord(
      { ...row, ...next, locked_until: null, updated_at: isoAt(now) },
      now,
    );
    if (!stored) {
      log.warn("lease lost before the attempt was recorded; the new owner decides", { id: row.id });
      // The attempt happened and is on disk: its observers count it. The row's state is the new
      // owner's to decide, so the kind's owner hears nothing.
      if (item.attempt) hearAttempt(tx, updated, item.attempt, observers);
      return null;
    }
    if (item.attempt) hearAttempt(tx, updated, item.attempt);
    else if (updated.status === "delivered") hearSkip(tx, updated);
    return updated;
  };

  const listenersOf = (delivery: DeliveryRecord) => {
    const onAttempt = kinds.get(delivery.kind)?.onAttempt;
    return onAttempt ? [onAttempt, ...observers] : observers;
  };

  /** The kind's owner, then every observer, each in its own savepoint: one failing undoes only itself. */
  const hearAttempt = (
    tx: TxHandle,
    delivery: DeliveryRecord,
    attempt: DeliveryAttempt,
    listeners = listenersOf(delivery),
  ) => {
    for (const listener of listeners) {
      try {
        tx.savepoint((inner) => listener(inner, delivery, attempt));
      } catch (error) {
        log.error("a delivery attempt's listener failed; its writes were undone", {
          id: delivery.id,
          error,
        });
      }
    }
  };

  /** A delivery ended with nothing sent: its owner hears it in a savepoint of its own. */
  const hearSkip = (tx: TxHandle, delivery: DeliveryRecord) => {
    const onSkipped = kinds.get(delivery.kind)?.onSkipped;
    if (!onSkipped) return;
    try {
      tx.savepoint((inner) => onSkipped(inner, delivery));
    } catch (error) {
      log.error("a skipped delivery's listener failed; its writes were undone", {
        id: delivery.id,
        error,
      });
    }
  };

  const attempts = createAttemptCounts();

  const recorder = createGroupCommit<Recording<Lease>, DeliveryRecord | null>({
    tx: deps.db.tx,
    // One transaction per turn with ingest's batch: one fsync for both, not one each.
    turn: deps.db.turn,
    commit(batch, tx) {
      const moved: BreakerMoves = new Map();
      const results = batch.map((item) => writeRecording(item, tx, moved));
      const now = deps.clock.now();
      for (const [key, state] of moved) repo.saveBreaker(key, state, now);
      return results;
    },
    onCommitted(batch, results) {
      for (const item of batch) item.lease.settled();
      for (const item of batch) {
        if (item.next.next_attempt_at !== null)
          queue.rearm(item.row.destination_key, item.row.organization_id);
      }
      for (let i = 0; i < batch.length; i++) {
        const delivery = results[i];
        const attempt = batch[i]?.attempt;
        if (!delivery || !attempt) continue;
        attempts.count(delivery.kind, attempt);
        if (attempt.errorType !== null) logFailure(failedTry(delivery, attempt));
        deps.bus.publish("delivery.attempted", { delivery, attempt });
      }
    },
    // The leases stay as they were: the rows run again when they end.
    onRolledBack: (batch) => {
      for (const item of batch) item.lease.settled();
    },
    onCommittedError: (error) => log.error("publishing delivery attempts failed", { error }),
  });

  /** Outcomes submitted and not yet committed (stop waits for them). */
  const uncommitted = new Set<Promise<unknown>>();
  /**
   * Hands an outcome to the group commit without waiting for it: the row keeps its lease until
   * the commit, so nobody else claims it meanwhile (nor this process, should the clock leap past
   * the lease: holdUntilSettled), and its slot is free for the next row at once (the fsync is
   * not part of an attempt's time). A failed commit leaves the lease, so the row runs again when
   * it ends: at-least-once, as after a crash.
   */
  const recordLater = (item: Recording<Lease>): void => {
    item.lease.holdUntilSettled();
    const committing = recorder.submit(item).catch((error) => {
      item.lease.settled();
      log.error("recording a delivery attempt failed; the row runs again when its lease ends", {
        id: item.row.id,
        error,
      });
    });
    uncommitted.add(committing);
    committing.finally(() => uncommitted.delete(committing));
  };

  /** Asks the destination's breaker; saves the state when admitting changed it (a probe went out). */
  const admitted = (row: DeliveryRow, now: number) => {
    const stored = repo.breaker(row.destination_key);
    const state = releaseStaleProbe(stored, now, openMs);
    const admission = admit(state, now);
    if (admission.state !== stored) {
      deps.db.tx(() => repo.saveBreaker(row.destination_key, admission.state, now));
    }
    return admission;
  };

  const run = createAttemptRunner(deps, { kinds, admit: admitted, record: recordLater });

  const queue: DueQueue = createDueQueue({
    name: "delivery",
    db: deps.db,
    // Organizations share the slots fairly: one's slow destinations never hold another's rows.
    table: { table: "deliveries", key: "destination_key", group: "organization_id" },
    clock: deps.clock,
    scheduler: deps.scheduler,
    logger: deps.logger,
    run: (row, lease) => run(row as unknown as DeliveryRow, lease),
    concurrency: () => deliveryLimit(pressure, deps.clock.now(), giveWay),
    perKey: deps.config.delivery_per_destination,
    // Longer than the slowest attempt, so a live attempt never loses its row (leases are extended
    // too); short enough that a crashed process's rows are picked up soon after a restart.
    leaseMs: leaseFor(deps.config),
    // Only `weir serve` runs the worker, and its data dir lock admits one server at a time.
    soleWorker: true,
  });

  return {
    queue,
    /** An ingest commit held `size` requests: the pressure deliveries give way to. */
    ingestCommitted(size: number): void {
      pressure = observeBatch(pressure, size, deps.clock.now(), giveWay);
    },
    /** Attempts by kind and outcome since start: [kind, outcome, count]. */
    outcomes: attempts.list,
    async stop(): Promise<void> {
      await queue.stop();
      recorder.close();
      await Promise.all([...uncommitted]);
    },
  };
}

/** Twice the longest attempt deadline, at least 5 s. */
export function leaseFor(config: OutboxDeps["config"]): number {
  return Math.max(5_000, 2 * Math.max(config.destination_timeout_ms, config.forward_timeout_ms));
}
