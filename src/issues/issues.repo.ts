import type { DbHandle } from "../db/db.tx.ts";
import type { FailurePattern } from "./issues.model.ts";
import type { IssueRecord, IssueStatus } from "./issues.ports.ts";

interface IssueRow {
  id: string;
  organization_id: string;
  bridge_id: string;
  destination_id: string;
  status: IssueStatus;
  error_type: string;
  error_code: string;
  error_message: string;
  occurrence_count: number;
  first_occurrence_at: string;
  last_occurrence_at: string;
  opened_at: string;
  resolved_at: string | null;
  last_success_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A failed attempt kept with its issue. */
export interface IssueSample {
  attemptId: string;
  issueId: string;
  eventId: string;
  deliveryId: string;
  attempt: number;
  statusCode: number | null;
  responseExcerpt: string;
  errorType: string;
  errorCode: string;
  errorMessage: string;
  occurredAt: string;
}

interface SampleRow {
  id: string;
  issue_id: string;
  event_id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  response_excerpt: string;
  error_type: string;
  error_code: string;
  error_message: string;
  occurred_at: string;
}

/** The list filters of `GET /issues`. */
export interface IssueQuery {
  status?: IssueStatus;
  bridgeId?: string;
  destinationId?: string;
}

const toIssue = (r: IssueRow): IssueRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  bridgeId: r.bridge_id,
  destinationId: r.destination_id,
  status: r.status,
  errorType: r.error_type,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  occurrenceCount: r.occurrence_count,
  firstOccurrenceAt: r.first_occurrence_at,
  lastOccurrenceAt: r.last_occurrence_at,
  openedAt: r.opened_at,
  resolvedAt: r.resolved_at,
  lastSuccessAt: r.last_success_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toSample = (r: SampleRow): IssueSample => ({
  attemptId: r.id,
  issueId: r.issue_id,
  eventId: r.event_id,
  deliveryId: r.delivery_id,
  attempt: r.attempt,
  statusCode: r.status_code,
  responseExcerpt: r.response_excerpt,
  errorType: r.error_type,
  errorCode: r.error_code,
  errorMessage: r.error_message,
  occurredAt: r.occurred_at,
});

const PATTERN = `destination_id = ? AND error_type = ? AND error_code = ? AND bridge_id = ?
  AND organization_id = ?`;
type PatternValues = [string, string, string, string, string];
const patternValues = (p: FailurePattern): PatternValues => [
  p.destinationId,
  p.errorType,
  p.errorCode,
  p.bridgeId,
  p.organizationId,
];

/** Builds the WHERE clause of a list query (every list is one organization's). */
function listWhere(organizationId: string, query: IssueQuery) {
  const filters: [string, string | undefined][] = [
    ["organization_id", organizationId],
    ["status", query.status],
    ["bridge_id", query.bridgeId],
    ["destination_id", query.destinationId],
  ];
  const present = filters.filter((f): f is [string, string] => f[1] !== undefined);
  return {
    where: present.map(([column]) => `${column} = ?`).join(" AND "),
    values: present.map(([, value]) => value),
  };
}

/** All SQL of issues and their samples. */
export function createIssuesRepo(db: DbHandle) {
  const { sqlite } = db;
  const unclosed = sqlite.prepare<IssueRow, PatternValues>(
    `SELECT * FROM issues WHERE ${PATTERN} AND status <> 'closed'`,
  );
  const latestClosed = sqlite.prepare<IssueRow, PatternValues>(
    `SELECT * FROM issues WHERE ${PATTERN} AND status = 'closed'
     ORDER BY resolved_at DESC, id DESC LIMIT 1`,
  );
  const insert = sqlite.prepare(
    `INSERT INTO issues (id, organization_id, bridge_id, destination_id, status, error_type,
       error_code, error_message, occurrence_count, first_occurrence_at, last_occurrence_at,
       opened_at, resolved_at, last_success_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = sqlite.prepare(
    `UPDATE issues SET status = ?, error_message = ?, occurrence_count = ?,
       last_occurrence_at = ?, opened_at = ?, resolved_at = ?, last_success_at = ?, updated_at = ?
     WHERE id = ?`,
  );
  const success = sqlite.prepare(
    `UPDATE issues SET last_success_at = ?2, updated_at = ?3
     WHERE destination_id = ?1 AND status <> 'closed' AND opened_at <= ?2
       AND (last_success_at IS NULL OR last_success_at < ?2)`,
  );
  const byOrg = sqlite.prepare<IssueRow, [string, string]>(
    "SELECT * FROM issues WHERE id = ? AND organization_id = ?",
  );
  const unclosedBefore = sqlite.prepare<IssueRow, [string, string, number]>(
    `SELECT * FROM issues WHERE organization_id = ? AND status <> 'closed' AND opened_at <= ?
     ORDER BY opened_at, id LIMIT ?`,
  );
  const unclosedOfDestination = sqlite.prepare<IssueRow, [string, string]>(
    `SELECT * FROM issues WHERE destination_id = ? AND organization_id = ? AND status <> 'closed'
     ORDER BY opened_at, id`,
  );
  const insertSample = sqlite.prepare(
    `INSERT OR IGNORE INTO issue_samples (id, issue_id, event_id, delivery_id, attempt, status_code,
       response_excerpt, error_type, error_code, error_message, occurred_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const trimSamples = sqlite.prepare(
    `DELETE FROM issue_samples WHERE issue_id = ?1 AND id NOT IN (
       SELECT id FROM issue_samples WHERE issue_id = ?1 ORDER BY occurred_at DESC, id DESC LIMIT ?2)`,
  );
  const samplesOf = sqlite.prepare<SampleRow, [string, number]>(
    "SELECT * FROM issue_samples WHERE issue_id = ? ORDER BY occurred_at DESC, id DESC LIMIT ?",
  );
  const tenants = sqlite.prepare<{ id: string; plan: string | null }, []>(
    `SELECT o.id, o.plan FROM organizations o
      WHERE EXISTS (SELECT 1 FROM issues i WHERE i.organization_id = o.id AND i.status = 'closed')`,
  );
  const deleteClosed = sqlite.prepare<never, [string, string, number]>(
    `DELETE FROM issues WHERE id IN (
       SELECT id FROM issues
        WHERE status = 'closed' AND resolved_at < ?2 AND organization_id = ?1 LIMIT ?3)`,
  );
  const byStatus = sqlite.prepare<{ status: IssueStatus; n: number }, []>(
    // Kept by triggers on issues (migration 0024): three rows, however many issues are kept.
    "SELECT status, n FROM issue_status_counts",
  );
  return {
    /** How many issues each status has, across organizations (for /metrics). */
    countByStatus(): { status: IssueStatus; n: number }[] {
      return byStatus.all();
    },
    /** The open or work_in_progress issue of a pattern (at most one: a unique index says so). */
    findUnclosed(pattern: FailurePattern): IssueRecord | null {
      const row = unclosed.get(...patternValues(pattern));
      return row ? toIssue(row) : null;
    },
    /** The most recently closed issue of a pattern, which a recurrence reopens. */
    findLatestClosed(pattern: FailurePattern): IssueRecord | null {
      const row = latestClosed.get(...patternValues(pattern));
      return row ? toIssue(row) : null;
    },
    insert(i: IssueRecord): void {
      insert.run(
        i.id,
        i.organizationId,
        i.bridgeId,
        i.destinationId,
        i.status,
        i.errorType,
        i.errorCode,
        i.errorMessage,
        i.occurrenceCount,
        i.firstOccurrenceAt,
        i.lastOccurrenceAt,
        i.openedAt,
        i.resolvedAt,
        i.lastSuccessAt,
        i.createdAt,
        i.updatedAt,
      );
    },
    /** Writes what may change of an issue (status, counts, times). */
    update(i: IssueRecord): void {
      update.run(
        i.status,
        i.errorMessage,
        i.occurrenceCount,
        i.lastOccurrenceAt,
        i.openedAt,
        i.resolvedAt,
        i.lastSuccessAt,
        i.updatedAt,
        i.id,
      );
    },
    /** A success to a destination, on its issues opened before it; returns how many. */
    recordSuccess(destinationId: string, at: string, now: string): number {
      return success.run(destinationId, at, now).changes;
    },
    find(organizationId: string, id: string): IssueRecord | null {
      const row = byOrg.get(id, organizationId);
      return row ? toIssue(row) : null;
    },
    list(
      organizationId: string,
      query: IssueQuery,
      page: { limit: number; offset: number },
    ): { items: IssueRecord[]; total: number } {
      const { where, values } = listWhere(organizationId, query);
      const total =
        sqlite
          .query<{ n: number }, string[]>(`SELECT count(*) AS n FROM issues WHERE ${where}`)
          .get(...values)?.n ?? 0;
      const rows = sqlite
        .query<IssueRow, (string | number)[]>(
          `SELECT * FROM issues WHERE ${where}
           ORDER BY last_occurrence_at DESC, id DESC LIMIT ? OFFSET ?`,
        )
        .all(...values, page.limit, page.offset);
      return { items: rows.map(toIssue), total };
    },
    listUnclosedOfDestination(organizationId: string, destinationId: string): IssueRecord[] {
      return unclosedOfDestination.all(destinationId, organizationId).map(toIssue);
    },
    listUnclosedOpenedBefore(
      organizationId: string,
      openedBefore: string,
      limit: number,
    ): IssueRecord[] {
      return unclosedBefore.all(organizationId, openedBefore, limit).map(toIssue);
    },
    /**
     * Keeps a failed attempt with its issue; with `trimTo`, deletes all but the latest `trimTo`
     * (the caller trims every few samples, not on each: the trim costs more than the insert).
     */
    addSample(s: IssueSample, trimTo: number | null): void {
      insertSample.run(
        s.attemptId,
        s.issueId,
        s.eventId,
        s.deliveryId,
        s.attempt,
        s.statusCode,
        s.responseExcerpt,
        s.errorType,
        s.errorCode,
        s.errorMessage,
        s.occurredAt,
      );
      if (trimTo !== null) trimSamples.run(s.issueId, trimTo);
    },
    samples(issueId: string, limit: number): IssueSample[] {
      return samplesOf.all(issueId, limit).map(toSample);
    },
    /** Organizations that have closed issues, with their plan (for the retention sweep). */
    tenantsWithClosedIssues(): { id: string; plan: string }[] {
      return tenants.all().map((row) => ({ id: row.id, plan: row.plan ?? "free" }));
    },
    /** Deletes up to `limit` closed issues of an organization resolved before `before`. */
    deleteClosedBefore(organizationId: string, before: string, limit: number): number {
      return deleteClosed.run(organizationId, before, limit).changes;
    },
  };
}

export type IssuesRepo = ReturnType<typeof createIssuesRepo>;
