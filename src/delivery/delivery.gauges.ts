/**
 * The outbox's queue figures for /metrics, kept in memory so a scrape never counts the backlog
 * (a million queued rows cost a scrape ~0.5 s of the only event loop). The delivery repo moves a
 * row's due time here after each write commits (`afterCommit`: a rollback leaves no trace), and
 * the room rebuilds it from the table once at start, so a crash loses nothing.
 *
 * Kept: how many rows are queued (not ended), and how many are due in each second still to come
 * (a row whose second has passed is only counted as queued: it is due, or leased). "Due later"
 * is then the sum of the seconds after this one, bounded by how far ahead rows are scheduled
 * (backoff, breaker waits), never by how many wait; the rest of this second is read from the due
 * index by the caller.
 */
export interface QueueGauges {
  /** Sets the figures from the table's rows not ended, grouped by the second they are due. */
  rebuild(rowsBySecond: readonly { second: number; n: number }[]): void;
  /** A row's due time went from `from` to `to` (null: not queued: absent or ended). */
  move(from: number | null, to: number | null, rows?: number): void;
  queued(): number;
  /** Queued rows due in a second after `now`'s second. */
  dueAfterSecondOf(now: number): number;
}

export function createQueueGauges(): QueueGauges {
  let queued = 0;
  /** Rows by due second, only for seconds after `settledThrough`. */
  const later = new Map<number, number>();
  /** Seconds up to this one have passed: their rows are not tracked by second any more. */
  let settledThrough = Number.NEGATIVE_INFINITY;

  const add = (at: number, rows: number) => {
    const second = Math.floor(at / 1000);
    if (second <= settledThrough) return;
    const n = (later.get(second) ?? 0) + rows;
    if (n === 0) later.delete(second);
    else later.set(second, n);
  };

  /** Forgets the seconds that have passed (a clock set back does not bring them back). */
  const settle = (second: number) => {
    if (second <= settledThrough) return;
    settledThrough = second;
    for (const key of later.keys()) if (key <= second) later.delete(key);
  };

  return {
    rebuild(rowsBySecond) {
      queued = 0;
      later.clear();
      settledThrough = Number.NEGATIVE_INFINITY;
      for (const { second, n } of rowsBySecond) {
        queued += n;
        later.set(second, (later.get(second) ?? 0) + n);
      }
    },
    move(from, to, rows = 1) {
      if (from !== null) {
        queued -= rows;
        add(from, -rows);
      }
      if (to !== null) {
        queued += rows;
        add(to, rows);
      }
    },
    queued: () => queued,
    dueAfterSecondOf(now) {
      const second = Math.floor(now / 1000);
      settle(second);
      let n = 0;
      for (const count of later.values()) n += count;
      return n;
    },
  };
}
