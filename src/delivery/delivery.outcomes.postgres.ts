import type { PostgresLease } from "../db/db.due-queue.postgres.ts";
import { type BatchOutcome, createPostgresGroupCommit } from "../db/db.group-commit.postgres.ts";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import { isoAt } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { finishingWrite, type Recording } from "./delivery.attempt.ts";
import { type BreakerState, record } from "./delivery.breaker.model.ts";
import type { SharedBreakers } from "./delivery.breaker.store.ts";
import type {
  AttemptObserverPostgres,
  DeliveryAttempt,
  DeliveryKind,
  DeliveryKindHandlers,
  DeliveryRecord,
} from "./delivery.ports.ts";
import { toDeliveryRecord } from "./delivery.repo.ts";
import type { DeliveryStore } from "./delivery.store.ts";
import type { PostgresOutboxDeps } from "./delivery.worker.postgres.ts";

/** PostgreSQL's codes for a deadlock and a serialization failure: try again, and it goes. */
const LOCK_CONFLICTS = new Set(["40P01", "40001"]);
const isLockConflict = (error: unknown) =>
  LOCK_CONFLICTS.has(String((error as { errno?: unknown } | null)?.errno));

/** How often an outcome recorded alone is tried when it meets a lock conflict. */
const LONE_TRIES = 3;

/** Most attempt outcomes in one transaction. */
const MAX_OUTCOMES_PER_COMMIT = 64;

/**
 * An attempt's outcome, with whether its breaker changes (decided before the transaction), when
 * it came, and its lease's end, the token its finishing write checks.
 */
type Outcome = Recording<PostgresLease> & { breakerWrite: boolean; at: number; until: number };

export interface PostgresOutcomesDeps {
  deps: Pick<PostgresOutboxDeps, "clock" | "config" | "postgres">;
  store: DeliveryStore;
  kinds: ReadonlyMap<DeliveryKind, DeliveryKindHandlers>;
  observers: readonly AttemptObserverPostgres[];
  breakers: SharedBreakers;
  /** The worker's note of a breaker's state (which destinations health shows as open). */
  noteBreaker(key: string, state: BreakerState): void;
  log: Logger;
}

/**
 * How a node on PostgreSQL records its attempts' outcomes: each with its attempt row, the
 * destination's breaker and the kind's and observers' writes (`onAttemptPostgres`), in batches
 * (below), and what its admissions must count before those batches commit (`withPending`).
 */
export function createPostgresOutcomes(ctx: PostgresOutcomesDeps) {
  const { deps, store, kinds, observers, breakers, noteBreaker, log } = ctx;
  const { sql } = deps.postgres;
  const openMs = deps.config.breaker_open_ms;

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
  const observersOf = (delivery: DeliveryRecord, attempt: DeliveryAttempt) =>
    observers.map((observer) => (tx: PostgresTx) => observer(tx, delivery, attempt));
  const listenersOf = (delivery: DeliveryRecord, attempt: DeliveryAttempt | null) => {
    const handlers = kinds.get(delivery.kind);
    if (!attempt) {
      const onSkipped = handlers?.onSkippedPostgres;
      return onSkipped ? [(tx: PostgresTx) => onSkipped(tx, delivery)] : [];
    }
    const onAttempt = handlers?.onAttemptPostgres;
    const owner = onAttempt ? [(tx: PostgresTx) => onAttempt(tx, delivery, attempt)] : [];
    return [...owner, ...observersOf(delivery, attempt)];
  };

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
    const stored = await store.finish(tx, finishingWrite(item, until, now));
    if (!stored && !(await tx`SELECT 1 FROM deliveries WHERE id = ${row.id}`).length) {
      return { delivery: null, breaker: false }; // deleted meanwhile (retention): nothing to record
    }
    if (item.attempt) await store.insertAttempt(tx, item.attempt);
    const updated = toDeliveryRecord(
      { ...row, ...next, locked_until: null, updated_at: isoAt(now) },
      now,
    );
    if (!stored) {
      log.warn("lease lost before the attempt was recorded; the new owner decides", {
        id: row.id,
      });
      // The attempt happened and is on disk: its observers count it. The row's state is the new
      // owner's to decide, so the kind's owner hears nothing.
      if (item.attempt) await hear(tx, updated, observersOf(updated, item.attempt));
      return { delivery: null, breaker };
    }
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
    // Within a destination, by failure: the listeners' locks per failure (an issue's pattern)
    // are then taken in one order by every node's batches too.
    orderBy: (item) =>
      [item.row.destination_key, item.attempt?.errorType ?? "", item.attempt?.errorCode ?? ""].join(
        "\u0000",
      ),
    async commit(tx, batch) {
      const results: BatchOutcome<DeliveryRecord | null>[] = [];
      const changing: Outcome[] = [];
      let conflict: unknown = null;
      for (const item of batch) {
        // After a lock conflict the batch commits what it holds at once: the locks its earlier
        // outcomes took would make each later one wait in another cycle (a second each, until
        // PostgreSQL finds it). The rest are recorded alone after the commit.
        if (conflict !== null) {
          results.push({ failed: conflict });
          continue;
        }
        try {
          const { delivery, breaker } = await tx.savepoint((inner) => recordOne(inner, item));
          if (breaker) changing.push(item);
          results.push({ result: delivery });
        } catch (error) {
          if (isLockConflict(error)) conflict = error;
          results.push({ failed: error });
        }
      }
      await writeBreakers(tx, changing);
      return results;
    },
    alone: async (item) => {
      // A lock conflict here too is tried again: given up, the outcome would wait for its
      // lease to end and the attempt be sent again.
      for (let tries = 1; ; tries++) {
        try {
          return await sql.begin(async (tx) => {
            const { delivery, breaker } = await recordOne(tx, item);
            if (breaker) await writeBreakers(tx, [item]);
            return delivery;
          });
        } catch (error) {
          if (!isLockConflict(error) || tries >= LONE_TRIES) throw error;
        }
      }
    },
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

  return {
    /** Records an attempt's outcome; resolves once committed (null: nothing to tell). */
    commit,
    withPending,
    close: () => outcomesCommit.close(),
  };
}
