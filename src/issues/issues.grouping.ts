import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryAttempt, DeliveryRecord } from "../delivery/delivery.ports.ts";
import type { DestinationDescription } from "../routing/routing.room.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { applyOccurrence, excerpt, ISSUE_SAMPLE_LIMIT } from "./issues.model.ts";
import type { IssueChange, IssueContext } from "./issues.ports.ts";
import type { IssueSample, IssuesRepo } from "./issues.repo.ts";
import type { FreshIssue, GroupedFailure, RecordedFailure } from "./issues.store.ts";

export type IssueListener = (tx: TxHandle, change: IssueChange) => void;
export type IssueListenerPostgres = (tx: PostgresTx, change: IssueChange) => Promise<void>;

export interface GroupingDeps {
  repo: IssuesRepo;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** The routing room's lookup of a destination by id (null: deleted). */
  describeDestination(destinationId: string): DestinationDescription | null;
  listeners: readonly IssueListener[];
}

/** The names an issue change carries, from the routing room's description of its destination. */
export function contextOf(d: DestinationDescription | null): IssueContext {
  return {
    bridgeName: d?.bridgeName ?? "",
    sourceName: d?.sourceName ?? "",
    destinationName: d?.destinationName ?? "",
    destinationType: d?.destinationType ?? "",
    destinationPriority: d?.destinationPriority ?? "normal",
  };
}

/**
 * The failure an event delivery's failed attempt is, or null when it makes no issue: forwards and
 * alerts make none, and neither does a destination deleted since it was queued (its issues went
 * with it, and nobody can act on a new one).
 */
export function failureOf(
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
  destination: DestinationDescription | null,
): RecordedFailure | null {
  if (delivery.kind !== "event" || attempt.errorType === null || !destination) return null;
  return {
    pattern: {
      organizationId: destination.organizationId,
      bridgeId: destination.bridgeId,
      destinationId: destination.destinationId,
      errorType: attempt.errorType,
      errorCode: attempt.errorCode ?? "",
    },
    attemptId: attempt.id,
    eventId: delivery.subjectId,
    deliveryId: delivery.id,
    attempt: attempt.attempt,
    statusCode: attempt.statusCode,
    responseExcerpt: excerpt(attempt.responseBody),
    message: attempt.errorMessage ?? "",
    occurredAt: attempt.createdAt,
  };
}

/** The sample a failure leaves with its issue. */
export function sampleOf(failure: RecordedFailure, issueId: string): IssueSample {
  return {
    attemptId: failure.attemptId,
    issueId,
    eventId: failure.eventId,
    deliveryId: failure.deliveryId,
    attempt: failure.attempt,
    statusCode: failure.statusCode,
    responseExcerpt: failure.responseExcerpt,
    errorType: failure.pattern.errorType,
    errorCode: failure.pattern.errorCode,
    errorMessage: failure.message,
    occurredAt: failure.occurredAt,
  };
}

/** Trimmed every ISSUE_SAMPLE_LIMIT occurrences: between 5 and 9 rows kept, 5 shown. */
export function sampleTrim(occurrenceCount: number): number | null {
  return occurrenceCount % ISSUE_SAMPLE_LIMIT === 0 ? ISSUE_SAMPLE_LIMIT : null;
}

/** Joins a failure to its pattern's issue through the SQLite repo, in the caller's transaction. */
export function groupFailure(
  repo: IssuesRepo,
  failure: RecordedFailure,
  fresh: FreshIssue,
): GroupedFailure {
  const { pattern } = failure;
  const existing = repo.findUnclosed(pattern) ?? repo.findLatestClosed(pattern);
  const change = applyOccurrence(
    existing,
    { pattern, message: failure.message, at: failure.occurredAt },
    fresh,
  );
  if (change.kind === "created") repo.insert(change.issue);
  else repo.update(change.issue);
  repo.addSample(sampleOf(failure, change.issue.id), sampleTrim(change.issue.occurrenceCount));
  return change;
}

/**
 * Hears one recorded attempt inside its transaction (decisions.md §8, interface.md "Issue
 * status"): an event delivery's failure joins or opens its pattern's issue; its success marks the
 * destination's unclosed issues with last_success_at. Forwards and alerts make no issue.
 */
export function observeAttempt(
  tx: TxHandle,
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
  deps: GroupingDeps,
): void {
  if (delivery.kind !== "event") return;
  const now = isoAt(deps.clock.now());
  if (attempt.errorType === null) {
    deps.repo.recordSuccess(delivery.destinationKey, attempt.createdAt, now);
    return;
  }
  const destination = deps.describeDestination(delivery.destinationKey);
  const failure = failureOf(delivery, attempt, destination);
  if (!failure) return;
  const change = groupFailure(deps.repo, failure, { id: deps.ids.uuid(), now });
  tellListeners(tx, { ...change, context: contextOf(destination) }, deps);
}

/** Each listener in its own savepoint: one that throws loses only its own writes, and is logged. */
function tellListeners(tx: TxHandle, change: IssueChange, deps: GroupingDeps): void {
  for (const listener of deps.listeners) {
    try {
      tx.savepoint((inner) => listener(inner, change));
    } catch (error) {
      deps.logger.error("an issue listener failed; its writes were undone", {
        scope: "issues",
        issue_id: change.issue.id,
        error,
      });
    }
  }
}

export interface PostgresGroupingDeps extends Omit<GroupingDeps, "repo" | "listeners"> {
  /** Joins a failure to its pattern's issue in the attempt's transaction. */
  group(tx: PostgresTx, failure: RecordedFailure, fresh: FreshIssue): Promise<GroupedFailure>;
  recordSuccess(tx: PostgresTx, destinationId: string, at: string, now: string): Promise<number>;
  listeners: readonly IssueListenerPostgres[];
}

/**
 * `observeAttempt` on PostgreSQL: inside the `sql.begin` transaction that records the attempt,
 * so the issue's count and what the listeners write commit with the attempt or not at all.
 */
export async function observeAttemptPostgres(
  tx: PostgresTx,
  delivery: DeliveryRecord,
  attempt: DeliveryAttempt,
  deps: PostgresGroupingDeps,
): Promise<void> {
  if (delivery.kind !== "event") return;
  const now = isoAt(deps.clock.now());
  if (attempt.errorType === null) {
    await deps.recordSuccess(tx, delivery.destinationKey, attempt.createdAt, now);
    return;
  }
  const destination = deps.describeDestination(delivery.destinationKey);
  const failure = failureOf(delivery, attempt, destination);
  if (!failure) return;
  const change = await deps.group(tx, failure, { id: deps.ids.uuid(), now });
  const told: IssueChange = { ...change, context: contextOf(destination) };
  // One after the other: a transaction's savepoints nest, they do not run side by side.
  for (const listener of deps.listeners) {
    try {
      await tx.savepoint((inner) => listener(inner, told));
    } catch (error) {
      deps.logger.error("an issue listener failed; its writes were undone", {
        scope: "issues",
        issue_id: told.issue.id,
        error,
      });
    }
  }
}
