import type { DueRow, RowId } from "./db.due-rows.ts";

/**
 * The claims of a due table shared by several Weir nodes on one PostgreSQL database
 * (db.due-rows.postgres.ts): the asynchronous twin of `DueRows` (db.due-rows.ts), which stays
 * the SQLite path. Leases are judged by the database's clock, not the node's: `locked_until`
 * (epoch ms) is set to the server's now plus the lease and compared to the server's now, so
 * nodes whose clocks disagree still agree on when a lease has lapsed. Due times are the app's
 * (`next_attempt_at`, written by whoever scheduled the row) compared to the server's now.
 * Claimed rows come as RETURNING * gives them, with the due time and the lease as numbers (other
 * bigint columns arrive as text, as Bun's client reads them).
 */
export interface DueStore {
  /** This node's name, written in the claimer column of the rows it holds. */
  readonly node: string;
  /**
   * Leases up to `limit` due rows in due order, never rows of `skipKeys` or `skipGroups`, none
   * held by a live lease of any node. Rows another node is claiming at this instant are passed
   * over (SKIP LOCKED), never waited for and never taken twice.
   */
  claim(
    limit: number,
    skipKeys?: readonly unknown[],
    skipGroups?: readonly unknown[],
  ): Promise<DueRow[]>;
  /** The same claim restricted to one key's rows. */
  claimKey(key: unknown, limit: number): Promise<DueRow[]>;
  /** The same claim restricted to one group's rows, none of `skipKeys`. */
  claimGroup(group: unknown, limit: number, skipKeys?: readonly unknown[]): Promise<DueRow[]>;
  /** Pushes a held lease to the server's now plus the lease; the new end, or null when lost. */
  extend(id: RowId, held: number): Promise<number | null>;
  /** Gives a held row back, due as it was; false when this node no longer held it. */
  release(id: RowId, held: number): Promise<boolean>;
  /** Gives back every row this node holds (a graceful stop); how many there were. */
  releaseMine(): Promise<number>;
  /** Whether any row is claimable now. */
  anyDue(): Promise<boolean>;
  /** The earliest due time after the server's now, or null. */
  nextDue(): Promise<number | null>;
}
