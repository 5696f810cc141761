import type { PostgresSql, PostgresTx } from "./db.postgres-handle.ts";

/** What one item of a batch came to: its result, or the error that undid it alone. */
export type BatchOutcome<R> = { result: R } | { failed: unknown };

export interface PostgresGroupCommitOptions<P, R> {
  sql: Pick<PostgresSql, "begin">;
  /** Most items in one transaction. */
  maxBatch: number;
  /**
   * The order the batch is written in (answers keep the order of submission): rows several
   * items share, taken in one order by every node's batches, never make two wait on each other.
   */
  orderBy?(item: P): string;
  /** The batch's writes in `tx`, each in a savepoint of its own, so one failing undoes only itself. */
  commit(tx: PostgresTx, batch: readonly P[]): Promise<BatchOutcome<R>[]>;
  /**
   * One item in a transaction of its own: for an item the batch undid (its savepoint failed,
   * e.g. on a deadlock with another node), and for every item of a batch whose transaction
   * failed as a whole; so no item fails for another's sake, and only what fails alone fails.
   */
  alone(item: P): Promise<R>;
}

export interface PostgresGroupCommit<P, R> {
  /** Resolves after the COMMIT that holds the item. */
  submit(item: P): Promise<R>;
  /** Commits what is queued; later submissions are refused. */
  close(): Promise<void>;
}

interface Queued<P, R> {
  item: P;
  resolve(result: R): void;
  reject(error: unknown): void;
}

/**
 * PostgreSQL's group commit: the items submitted in one turn of the event loop, or while the
 * previous batch commits, share one transaction, so a burst pays one WAL flush instead of one
 * per item (on a slow disk the flush is most of an ingest's cost). One batch is in flight at a time.
 */
export function createPostgresGroupCommit<P, R>(
  options: PostgresGroupCommitOptions<P, R>,
): PostgresGroupCommit<P, R> {
  let queue: Queued<P, R>[] = [];
  let scheduled = false;
  let inFlight: Promise<void> | null = null;
  let closed = false;

  const commitNext = async () => {
    const batch = queue.slice(0, options.maxBatch);
    queue = queue.slice(batch.length);
    const { orderBy } = options;
    const ordered = orderBy
      ? batch
          .map((queued) => ({ queued, key: orderBy(queued.item) }))
          .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
          .map(({ queued }) => queued)
      : batch;
    const alone = (queued: Queued<P, R>) =>
      options.alone(queued.item).then(queued.resolve, queued.reject);
    let outcomes: BatchOutcome<R>[];
    try {
      outcomes = await options.sql.begin((tx) =>
        options.commit(
          tx,
          ordered.map((queued) => queued.item),
        ),
      );
    } catch {
      for (const queued of ordered) await alone(queued);
      return;
    }
    const again: Queued<P, R>[] = [];
    for (const [i, queued] of ordered.entries()) {
      const outcome = outcomes[i];
      if (outcome && "result" in outcome) queued.resolve(outcome.result);
      else again.push(queued);
    }
    // One after another, in the batch's order: side by side they would take the same shared
    // rows in any order and could wait on each other as the batch did.
    for (const queued of again) await alone(queued);
  };
  const run = () => {
    scheduled = false;
    if (inFlight || queue.length === 0) return;
    inFlight = commitNext().finally(() => {
      inFlight = null;
      // What arrived during the commit is the next batch, committed at once.
      if (queue.length > 0) run();
    });
  };

  return {
    submit(item) {
      if (closed) return Promise.reject(new Error("the group commit is closed"));
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (scheduled || inFlight) return;
        scheduled = true;
        setImmediate(run);
      });
    },
    async close() {
      closed = true;
      while (inFlight || queue.length > 0) {
        run();
        await inFlight;
      }
    },
  };
}
