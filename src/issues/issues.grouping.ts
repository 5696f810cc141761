import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryAttempt, DeliveryRecord } from "../delivery/delivery.ports.ts";
import type { DestinationDescription } from "../routing/routing.room.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import {
  applyOccurrence,
  excerpt,
  type FailurePattern,
  ISSUE_SAMPLE_LIMIT,
} from "./issues.model.ts";
import type { IssueChange, IssueContext } from "./issues.ports.ts";
import type { IssuesRepo } from "./issues.repo.ts";

export type IssueListener = (tx: TxHandle, change: IssueChange) => void;

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
  // Deleted since it was queued: its issues went with it, and nobody can act on a new one.
  if (!destination) return;
  const pattern: FailurePattern = {
    organizationId: destination.organizationId,
    bridgeId: destination.bridgeId,
    destinationId: destination.destinationId,
    errorType: attempt.errorType,
    errorCode: attempt.errorCode ?? "",
  };
  const existing = deps.repo.findUnclosed(pattern) ?? deps.repo.findLatestClosed(pattern);
  const change = applyOccurrence(
    existing,
    { pattern, message: attempt.errorMessage ?? "", at: attempt.createdAt },
    { id: deps.ids.uuid(), now },
  );
  if (change.kind === "created") deps.repo.insert(change.issue);
  else deps.repo.update(change.issue);
  deps.repo.addSample(
    {
      attemptId: attempt.id,
      issueId: change.issue.id,
      eventId: delivery.subjectId,
      deliveryId: delivery.id,
      attempt: attempt.attempt,
      statusCode: attempt.statusCode,
      responseExcerpt: excerpt(attempt.responseBody),
      errorType: pattern.errorType,
      errorCode: pattern.errorCode,
      errorMessage: attempt.errorMessage ?? "",
      occurredAt: attempt.createdAt,
    },
    // Trimmed every ISSUE_SAMPLE_LIMIT occurrences: between 5 and 9 rows kept, 5 shown.
    change.issue.occurrenceCount % ISSUE_SAMPLE_LIMIT === 0 ? ISSUE_SAMPLE_LIMIT : null,
  );
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
