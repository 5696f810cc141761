import type { DueRow, DueRows } from "./db.due-rows.ts";

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

/** What the claims of owed parts use of their due-queue. */
export interface OwedClaimsContext {
  shares: GroupShares;
  rows: Pick<DueRows, "claim" | "claimGroup">;
  /** Runs one claim in a transaction and launches the rows accepted; returns how many it claimed. */
  claimWith(claim: (now: number, until: number) => DueRow[]): number;
  /** Slots the group may take now. */
  room(group: unknown): number;
  saturatedKeys(): unknown[];
  concurrency(): number;
  running(): number;
}

/**
 * The claims that give a group its part while every slot is taken: a group named by an enqueue
 * claims from its own rows (by its index), and after a poll one claim looks for any group owed a
 * part, skipping the groups whose part is used. Only the poll: that claim reads past the due rows
 * of the groups at their part, which a wake-up at every due time would repeat.
 */
export function createOwedClaims(ctx: OwedClaimsContext) {
  const hinted = new Set<unknown>();
  let lookForAny = true;

  /** Claims the rows `group` is owed: its own due rows. */
  const claimOwed = (group: unknown) => {
    const room = ctx.room(group);
    if (room <= 0) return;
    ctx.claimWith((now, until) =>
      ctx.rows.claimGroup(group, now, until, room, ctx.saturatedKeys()),
    );
  };

  return {
    claimOwed,
    /** Groups with new rows: they may be owed slots. */
    hint(groups: Iterable<unknown>): void {
      for (const group of groups) hinted.add(group);
    },
    /** A poll came: rows of any group may be due (a retry, a crashed process's rows). */
    pollCame(): void {
      lookForAny = true;
    },
    /** After a full claim: with every slot taken, the groups still owed a part claim past it. */
    claimForOwedGroups(): void {
      const named = [...hinted];
      hinted.clear();
      const concurrency = ctx.concurrency();
      if (ctx.running() < concurrency) return;
      for (const group of named) claimOwed(group);
      if (!lookForAny) return;
      lookForAny = false;
      const part = fairShare(concurrency, ctx.shares.size() + 1);
      ctx.claimWith((now, until) =>
        ctx.rows.claim(now, until, part, ctx.saturatedKeys(), ctx.shares.full(concurrency)),
      );
    },
  };
}
