/**
 * Fair shares of a due-queue's slots between groups (tenants: the organizations of a shared
 * instance). Each group holding rows is owed an equal part of the concurrency; within its part a
 * group may always take a row, even past the queue's limit, so a group that starts while another
 * fills every slot with slow rows starts at once instead of waiting for those rows to end.
 * Past its part a group takes only free slots, so a group alone still uses the whole limit.
 *
 * The sum of the parts is at most the limit and rows past a part are taken only while a slot is
 * free, so at most twice the limit run at once, and only while the groups' holdings even out
 * (running rows are never cut short; a group over its part takes nothing until others have room).
 */
export interface GroupShares {
  /** Rows the group holds now. */
  held(group: unknown): number;
  hold(group: unknown): void;
  /** One of the group's rows ended; true when the group holds none any more. */
  release(group: unknown): boolean;
  /**
   * How many more rows `group` may take now, with `running` rows running under the limit
   * `concurrency` and `taken` rows per group accepted but not yet held.
   */
  room(
    group: unknown,
    concurrency: number,
    running: number,
    taken?: ReadonlyMap<unknown, number>,
  ): number;
  /** Groups owed no more rows while no slot is free (their part is used). */
  full(concurrency: number): unknown[];
  /** Groups holding rows now. */
  size(): number;
}

/** The part of `concurrency` each of `groups` groups is owed (at least one row). */
export function fairShare(concurrency: number, groups: number): number {
  return Math.max(1, Math.floor(concurrency / Math.max(1, groups)));
}

export function createGroupShares(): GroupShares {
  const holding = new Map<unknown, number>();
  const held = (group: unknown) => holding.get(group) ?? 0;
  return {
    held,
    hold(group) {
      holding.set(group, held(group) + 1);
    },
    release(group) {
      const left = held(group) - 1;
      if (left > 0) holding.set(group, left);
      else holding.delete(group);
      return left <= 0;
    },
    room(group, concurrency, running, taken = new Map()) {
      const mine = held(group) + (taken.get(group) ?? 0);
      let groups = holding.size;
      for (const [other, n] of taken) if (n > 0 && !holding.has(other)) groups++;
      if (mine === 0) groups++;
      const ownPart = fairShare(concurrency, groups) - mine;
      return Math.max(0, ownPart, concurrency - running);
    },
    full(concurrency) {
      const share = fairShare(concurrency, holding.size);
      return [...holding].filter(([, n]) => n >= share).map(([group]) => group);
    },
    size: () => holding.size,
  };
}
