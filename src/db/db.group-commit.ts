import type { CommitTurn, TurnShare } from "./db.commit-turn.ts";
import type { TxHandle } from "./db.tx.ts";

/** Runs `fn` in one transaction: a `UnitOfWork`'s `tx` (an asynchronous dialect may return a Promise). */
export type Transact = <R>(fn: (tx: TxHandle) => R) => R | Promise<R>;

export interface GroupCommitOptions<Item, Result> {
  /** Opens the one transaction per batch, usually `deps.db.tx`. */
  tx: Transact;
  /**
   * Writes a batch inside its transaction and says what became of each item, in order (e.g.
   * stored or not). Everything written here commits together: the capture rows and the outbox
   * rows they cause are one commit. Throwing rolls the whole batch back.
   */
  commit(batch: readonly Item[], tx: TxHandle): readonly Result[];
  /**
   * Called once per committed batch, before the submitters are answered: the place for bus
   * notices (after commit, never before). The rows are committed whatever it does.
   */
  onCommitted?(batch: readonly Item[], results: readonly Result[]): void;
  /**
   * Called once per batch whose writes were undone (its savepoint or its transaction rolled
   * back, the COMMIT included), before the submitters are rejected.
   */
  onRolledBack?(batch: readonly Item[], error: unknown): void;
  /** Told when `onCommitted` or `onRolledBack` throws. */
  onCommittedError?(error: unknown): void;
  /** Most items per transaction (a long transaction holds up whoever runs it). */
  maxBatch?: number;
  /**
   * Commit in the process's shared turn transaction (db.commit-turn.ts) instead of one of our
   * own: one fsync per turn for every group commit that shares it. `tx` still serves `close()`.
   */
  turn?: CommitTurn;
}

/** Queues items and commits them in groups; see `createGroupCommit`. */
export interface GroupCommit<Item, Result> {
  /** Resolves with the item's result once its batch has committed; rejects when the batch failed. */
  submit(item: Item): Promise<Result>;
  /** Items queued and not yet committed. */
  pending(): number;
  /** Refuses new items and commits what is queued now (with a synchronous transaction). */
  close(): void;
}

interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

const DEFAULT_MAX_BATCH = 500;

/**
 * Group commit (docs/performance.md): the items submitted during one turn of the event loop are
 * committed in a single transaction at the end of that turn (setImmediate), so a
 * synchronous=FULL fsync is paid once per batch instead of once per item, and nobody waits on a
 * timer. Each submitter is answered only after COMMIT. With an asynchronous transaction one batch
 * is in flight at a time: what arrives meanwhile forms the next batch, so batches grow exactly
 * when the disk is the bottleneck. A failed batch rejects every item in it and only those.
 */
export function createGroupCommit<Item, Result>(
  options: GroupCommitOptions<Item, Result>,
): GroupCommit<Item, Result> {
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  let queue: Pending<Item, Result>[] = [];
  let scheduled = false;
  let inFlight = false;
  let closed = false;

  const settle = (
    batch: Pending<Item, Result>[],
    items: readonly Item[],
    results: readonly Result[],
  ) => {
    if (options.onCommitted) {
      try {
        options.onCommitted(items, results);
      } catch (error) {
        options.onCommittedError?.(error);
      }
    }
    for (let i = 0; i < batch.length; i++) batch[i]?.resolve(results[i] as Result);
  };
  const fail = (batch: Pending<Item, Result>[], error: unknown) => {
    if (batch.length > 0 && options.onRolledBack) {
      try {
        options.onRolledBack(
          batch.map((p) => p.item),
          error,
        );
      } catch (hookError) {
        options.onCommittedError?.(hookError);
      }
    }
    for (const p of batch) p.reject(error);
  };
  const done = () => {
    inFlight = false;
    if (queue.length > 0) schedule();
  };
  const commitNext = () => {
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = batch === queue ? [] : queue.slice(maxBatch);
    const items = batch.map((p) => p.item);
    let outcome: readonly Result[] | Promise<readonly Result[]>;
    try {
      outcome = options.tx((tx) => options.commit(items, tx));
    } catch (error) {
      return fail(batch, error);
    }
    if (!(outcome instanceof Promise)) return settle(batch, items, outcome);
    inFlight = true;
    outcome.then(
      (results) => {
        settle(batch, items, results);
        done();
      },
      (error) => {
        fail(batch, error);
        done();
      },
    );
  };
  const endOfTurn = () => {
    scheduled = false;
    if (inFlight) return;
    commitNext();
    // Another batch is waiting and the store is free: give the loop a turn, then commit it.
    if (!inFlight && queue.length > 0) schedule();
  };
  const take = () => {
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = batch === queue ? [] : queue.slice(maxBatch);
    return batch;
  };
  /** The batch written into the turn's transaction and not yet settled. */
  let pendingShare: Pending<Item, Result>[] = [];
  const share: TurnShare = {
    write(tx) {
      const batch = take();
      if (batch.length === 0) return () => {}; // close() committed it already
      if (queue.length > 0) schedule(); // the rest goes in the next turn
      const items = batch.map((p) => p.item);
      pendingShare = batch; // until settled: a throw here or a failed COMMIT rejects it
      const results = options.commit(items, tx);
      return () => {
        pendingShare = [];
        settle(batch, items, results);
      };
    },
    fail(error) {
      // The share's batch, taken by write(), or (write never ran) what was queued then.
      const batch = pendingShare.length > 0 ? pendingShare : take();
      pendingShare = [];
      fail(batch, error);
    },
  };
  const schedule = () => {
    if (options.turn) return options.turn.enlist(share);
    if (scheduled) return;
    scheduled = true;
    setImmediate(endOfTurn);
  };

  return {
    submit(item) {
      if (closed) return Promise.reject(new Error("group commit is closed"));
      return new Promise<Result>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
    pending: () => queue.length,
    close() {
      closed = true;
      while (!inFlight && queue.length > 0) commitNext();
    },
  };
}
