import type { IssueRecord, IssueStatus } from "./issues.ports.ts";

export const ISSUE_STATUSES: readonly IssueStatus[] = ["open", "work_in_progress", "closed"];

/** How many of an issue's latest failed attempts it keeps to show (GET one). */
export const ISSUE_SAMPLE_LIMIT = 5;
/** How much of a failed answer's body a sample keeps. */
export const RESPONSE_EXCERPT_CHARS = 1024;

export function isIssueStatus(value: unknown): value is IssueStatus {
  return typeof value === "string" && (ISSUE_STATUSES as readonly string[]).includes(value);
}

/** What makes failures one issue (interface.md "Issue": destination, error type, details, bridge). */
export interface FailurePattern {
  organizationId: string;
  bridgeId: string;
  destinationId: string;
  errorType: string;
  errorCode: string;
}

/** One failed attempt, as it joins an issue. */
export interface Occurrence {
  pattern: FailurePattern;
  message: string;
  at: string;
}

/**
 * The issue a failure makes or changes (interface.md "Issue status"): none yet → a new open
 * issue; an open or work_in_progress one → same state, counted; a closed one → reopened, counted,
 * resolved_at and last_success_at cleared (a success before the reopening says nothing of it).
 */
export function applyOccurrence(
  existing: IssueRecord | null,
  occurrence: Occurrence,
  fresh: { id: string; now: string },
): { kind: "created" | "reopened" | "occurred"; issue: IssueRecord } {
  if (!existing) {
    const { pattern, message, at } = occurrence;
    return {
      kind: "created",
      issue: {
        id: fresh.id,
        ...pattern,
        status: "open",
        errorMessage: message,
        occurrenceCount: 1,
        firstOccurrenceAt: at,
        lastOccurrenceAt: at,
        openedAt: fresh.now,
        resolvedAt: null,
        lastSuccessAt: null,
        createdAt: fresh.now,
        updatedAt: fresh.now,
      },
    };
  }
  const counted: IssueRecord = {
    ...existing,
    errorMessage: occurrence.message,
    occurrenceCount: existing.occurrenceCount + 1,
    // Attempts of one destination commit in batches: an older one may land after a newer one.
    lastOccurrenceAt: later(existing.lastOccurrenceAt, occurrence.at),
    updatedAt: fresh.now,
  };
  if (existing.status !== "closed") return { kind: "occurred", issue: counted };
  return {
    kind: "reopened",
    issue: {
      ...counted,
      status: "open",
      openedAt: fresh.now,
      resolvedAt: null,
      lastSuccessAt: null,
    },
  };
}

/**
 * A status change asked for by PATCH (decisions.md §8: every move between the three states is
 * allowed). Reaching closed sets resolved_at; leaving it clears it and counts as opening again.
 * Asking for the current status changes nothing.
 */
export function applyStatusChange(
  issue: IssueRecord,
  status: IssueStatus,
  now: string,
): IssueRecord {
  if (status === issue.status) return issue;
  if (status === "closed") return { ...issue, status, resolvedAt: now, updatedAt: now };
  if (issue.status === "closed") {
    return {
      ...issue,
      status,
      resolvedAt: null,
      lastSuccessAt: null,
      openedAt: now,
      updatedAt: now,
    };
  }
  return { ...issue, status, updatedAt: now };
}

function later(a: string, b: string): string {
  return a >= b ? a : b;
}

/** The first characters of a failed answer's body, as a sample keeps them. */
export function excerpt(body: string): string {
  return body.length <= RESPONSE_EXCERPT_CHARS ? body : body.slice(0, RESPONSE_EXCERPT_CHARS);
}
