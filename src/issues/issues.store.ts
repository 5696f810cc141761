import type { FailurePattern } from "./issues.model.ts";
import type { IssueChange, IssueRecord, IssueStatus } from "./issues.ports.ts";
import type { IssueQuery, IssueSample } from "./issues.repo.ts";

export type { IssueQuery, IssueSample };

/** One failed attempt of an event delivery, as it joins its pattern's issue. */
export interface RecordedFailure {
  pattern: FailurePattern;
  attemptId: string;
  eventId: string;
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  responseExcerpt: string;
  message: string;
  occurredAt: string;
}

/** What a new issue would take: its id, and the time the change is written. */
export interface FreshIssue {
  id: string;
  now: string;
}

/** What recording a failure did to its pattern's issue. */
export type GroupedFailure = Omit<IssueChange, "context">;

/** What a PATCH of an issue's status came to. */
export type StatusChangeOutcome =
  | { outcome: "changed" | "unchanged"; issue: IssueRecord }
  | { outcome: "not_found" }
  /** Reopening was refused: the pattern already has another issue that is not closed. */
  | { outcome: "already_open" };

/**
 * The issues room's storage, one implementation per dialect. Every method is a whole unit: a
 * failure's grouping and a status change run their own transaction inside the implementation.
 * Reads that name an organization never see another organization's issues.
 */
export interface IssuesStore {
  /**
   * Joins the failure to its pattern's issue, opening one (none yet) or reopening the latest
   * closed one, and keeps it as a sample. Failures of one pattern recorded at once, from any
   * number of nodes, make one issue whose count adds them all up.
   */
  recordFailure(failure: RecordedFailure, fresh: FreshIssue): Promise<GroupedFailure>;
  /** A success to a destination at `at`, on its unclosed issues opened before it; how many. */
  recordSuccess(destinationId: string, at: string, now: string): Promise<number>;
  find(organizationId: string, id: string): Promise<IssueRecord | null>;
  /** A page of the organization's issues, latest occurrence first, and how many match. */
  list(
    organizationId: string,
    query: IssueQuery,
    page: { limit: number; offset: number },
  ): Promise<{ items: IssueRecord[]; total: number }>;
  /** An issue's latest failed attempts, newest first. */
  samples(issueId: string, limit: number): Promise<IssueSample[]>;
  /**
   * Moves the organization's issue to what `decide` makes of it; leaving closed is refused when
   * the pattern already has another issue that is not closed.
   */
  changeStatus(
    organizationId: string,
    issueId: string,
    decide: (issue: IssueRecord) => IssueRecord,
  ): Promise<StatusChangeOutcome>;
  /** The destination's issues that are not closed, oldest opened first. */
  listUnclosedOfDestination(organizationId: string, destinationId: string): Promise<IssueRecord[]>;
  /** The organization's unclosed issues opened at or before `openedBefore`, oldest first. */
  listUnclosedOpenedBefore(
    organizationId: string,
    openedBefore: string,
    limit: number,
  ): Promise<IssueRecord[]>;
  /** How many issues each status has, across organizations (for /metrics). */
  countByStatus(): Promise<{ status: IssueStatus; n: number }[]>;
  /** Organizations that have closed issues, with their plan (for the retention sweep). */
  tenantsWithClosedIssues(): Promise<{ id: string; plan: string }[]>;
  /** Deletes up to `limit` closed issues of an organization resolved before `before`. */
  deleteClosedBefore(organizationId: string, before: string, limit: number): Promise<number>;
}
