import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";

/**
 * What the issues room lends the rooms after it (alert rules first). Failed delivery attempts of
 * bridges' destinations are grouped into issues inside the transaction that records the attempt;
 * listeners hear every change to an issue in that same transaction, so an alert's delivery row
 * commits with the failure that caused it, or not at all.
 */

export type IssueStatus = "open" | "work_in_progress" | "closed";

/** An issue as other rooms see it (times as ISO 8601 strings, like the API). */
export interface IssueRecord {
  id: string;
  organizationId: string;
  bridgeId: string;
  destinationId: string;
  status: IssueStatus;
  errorType: string;
  errorCode: string;
  /** The message of the latest occurrence. */
  errorMessage: string;
  occurrenceCount: number;
  firstOccurrenceAt: string;
  lastOccurrenceAt: string;
  /** When the issue last became open: its creation, or its latest reopening. */
  openedAt: string;
  resolvedAt: string | null;
  /** The latest successful delivery to the destination after the issue opened. */
  lastSuccessAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Names an alert shows, read when the change happens (the bridge or destination may be renamed later). */
export interface IssueContext {
  bridgeName: string;
  sourceName: string;
  destinationName: string;
  destinationType: string;
  destinationPriority: "normal" | "high";
}

/** One change to an issue, after it was written. */
export interface IssueChange {
  /** created: a new issue; reopened: a closed one recurred; occurred: an open or work-in-progress one counted again. */
  kind: "created" | "reopened" | "occurred";
  issue: IssueRecord;
  context: IssueContext;
}

export interface IssuesPorts {
  /**
   * Registers a listener called inside the transaction that recorded the failed attempt and
   * changed the issue (register while the app is built). Each listener runs in its own
   * savepoint: one that throws has its own writes undone and is logged, while the attempt and
   * the issue change still commit. Listeners write rows (an alert's delivery through the outbox)
   * and never send anything themselves: what they write commits with the failure or not at all.
   */
  onIssueChange(listener: (tx: TxHandle, change: IssueChange) => void): void;
  /**
   * `onIssueChange` on PostgreSQL: the listener runs inside the `sql.begin` transaction that
   * recorded the attempt, in a savepoint of its own (a room running on either store registers
   * both; only the one of the store Weir runs on is ever told).
   */
  onIssueChangePostgres?(listener: (tx: PostgresTx, change: IssueChange) => Promise<void>): void;
  /**
   * The organization's issues that are not closed and were opened at or before `openedBefore`,
   * oldest first, at most `limit`.
   */
  listUnclosedOpenedBefore(
    organizationId: string,
    openedBefore: string,
    limit: number,
  ): Promise<{ issue: IssueRecord; context: IssueContext }[]>;
  /**
   * The issues of one destination that are not closed (the listener's own change included, as
   * it runs in the same transaction): what else is wrong with that destination right now. Read
   * inside an `onIssueChange` listener's SQLite transaction, so it answers at once.
   */
  listUnclosedOfDestination(organizationId: string, destinationId: string): IssueRecord[];
  /** `listUnclosedOfDestination` on PostgreSQL, read in the listener's transaction. */
  listUnclosedOfDestinationPostgres?(
    tx: PostgresTx,
    organizationId: string,
    destinationId: string,
  ): Promise<IssueRecord[]>;
  /** The caller's issue or null (another organization's issue is null). */
  findIssue(
    organizationId: string,
    issueId: string,
  ): Promise<{ issue: IssueRecord; context: IssueContext } | null>;
}
