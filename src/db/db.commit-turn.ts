import type { TxHandle } from "./db.tx.ts";

/** One writer's share of a turn's transaction (a group commit's batch). */
export interface TurnShare {
  /**
   * Writes inside the turn's transaction (in a savepoint of its own) and returns what to do
   * once the transaction has committed (answer the batch's submitters).
   */
  write(tx: TxHandle): () => void;
  /** The share's writes were undone (its own throw, or the whole commit failed). */
  fail(error: unknown): void;
}

/**
 * Several group commits of one process, committed as ONE transaction at the end of each
 * event-loop turn. With synchronous=FULL each transaction is an fsync that holds the event loop;
 * ingest's batch and the delivery attempts that ended in the same turn were two of them. A share
 * that throws is rolled back alone (its savepoint); a failed COMMIT fails every share.
 */
export interface CommitTurn {
  /** Adds the share to this turn's transaction (once per turn, however often it is called). */
  enlist(share: TurnShare): void;
}

export function createCommitTurn(
  tx: <R>(fn: (tx: TxHandle) => R) => R,
  schedule: (run: () => void) => void = setImmediate,
): CommitTurn {
  let shares: TurnShare[] = [];
  let scheduled = false;

  const run = () => {
    scheduled = false;
    const current = shares;
    shares = [];
    const settles: (() => void)[] = [];
    const failures: [TurnShare, unknown][] = [];
    try {
      tx((handle) => {
        for (const share of current) {
          try {
            settles.push(handle.savepoint((inner) => share.write(inner)));
          } catch (error) {
            failures.push([share, error]);
          }
        }
      });
    } catch (error) {
      for (const share of current) share.fail(error);
      return;
    }
    for (const [share, error] of failures) share.fail(error);
    for (const settle of settles) settle();
  };

  return {
    enlist(share) {
      if (!shares.includes(share)) shares.push(share);
      if (scheduled) return;
      scheduled = true;
      schedule(run);
    },
  };
}
