import type { IssueContext, IssueRecord } from "./issues.ports.ts";
import type { IssueSample } from "./issues.repo.ts";

/** An issue as the API shows it (interface.md "Issue", with the times Weir adds). */
export function presentIssue(i: IssueRecord) {
  return {
    id: i.id,
    bridge_id: i.bridgeId,
    destination_id: i.destinationId,
    status: i.status,
    error_type: i.errorType,
    error_code: i.errorCode,
    error_message: i.errorMessage,
    occurrence_count: i.occurrenceCount,
    first_occurrence_at: i.firstOccurrenceAt,
    last_occurrence_at: i.lastOccurrenceAt,
    opened_at: i.openedAt,
    resolved_at: i.resolvedAt,
    last_success_at: i.lastSuccessAt,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
  };
}

/** One of an issue's latest failed attempts. */
export function presentSample(s: IssueSample) {
  return {
    attempt_id: s.attemptId,
    event_id: s.eventId,
    delivery_id: s.deliveryId,
    attempt: s.attempt,
    status_code: s.statusCode,
    response_excerpt: s.responseExcerpt,
    error_type: s.errorType,
    error_code: s.errorCode,
    error_message: s.errorMessage,
    occurred_at: s.occurredAt,
  };
}

/** An issue with what the detail view adds: names of its route and its latest failures. */
export function presentIssueDetail(i: IssueRecord, context: IssueContext, samples: IssueSample[]) {
  return {
    ...presentIssue(i),
    bridge_name: context.bridgeName,
    source_name: context.sourceName,
    destination_name: context.destinationName,
    destination_type: context.destinationType,
    destination_priority: context.destinationPriority,
    recent_attempts: samples.map(presentSample),
  };
}
