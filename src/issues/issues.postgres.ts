import type { PostgresDb, PostgresSql, PostgresTx } from "../db/db.postgres-handle.ts";
import { sampleOf, sampleTrim } from "./issues.grouping.ts";
import { applyOccurrence, type FailurePattern } from "./issues.model.ts";
import type { IssueRecord, IssueStatus } from "./issues.ports.ts";
import type {
  FreshIssue,
  GroupedFailure,
  IssueSample,
  IssuesStore,
  RecordedFailure,
} from "./issues.store.ts";

type Row = Record<string, unknown>;

const toIssue = (r: Row): IssueRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  bridgeId: r.bridge_id as string,
  destinationId: r.destination_id as string,
  status: r.status as IssueStatus,
  errorType: r.error_type as string,
  errorCode: r.error_code as string,
  errorMessage: r.error_message as string,
  // bigint: Bun's client gives it as text.
  occurrenceCount: Number(r.occurrence_count),
  firstOccurrenceAt: r.first_occurrence_at as string,
  lastOccurrenceAt: r.last_occurrence_at as string,
  openedAt: r.opened_at as string,
  resolvedAt: (r.resolved_at as string | null) ?? null,
  lastSuccessAt: (r.last_success_at as string | null) ?? null,
  createdAt: r.created_at as string,
  updatedAt: r.updated_at as string,
});

const toSample = (r: Row): IssueSample => ({
  attemptId: r.id as string,
  issueId: r.issue_id as string,
  eventId: r.event_id as string,
  deliveryId: r.delivery_id as string,
  attempt: Number(r.attempt),
  statusCode: r.status_code === null ? null : Number(r.status_code),
  responseExcerpt: r.response_excerpt as string,
  errorType: r.error_type as string,
  errorCode: r.error_code as string,
  errorMessage: r.error_message as string,
  occurredAt: r.occurred_at as string,
});

/** PostgreSQL's code for a unique index refusing a row. */
const UNIQUE_VIOLATION = "23505";

/**
 * Holds the pattern's lock until the caller's transaction ends. Every write that may create or
 * reopen a pattern's issue takes it first, so the find-then-write of one node never interleaves
 * with another's: two nodes recording a pattern's first failure at once make one issue.
 */
async function lockPattern(tx: PostgresSql, p: FailurePattern): Promise<void> {
  const key = JSON.stringify([
    p.destinationId,
    p.errorType,
    p.errorCode,
    p.bridgeId,
    p.organizationId,
  ]);
  await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`issues:${key}`}, 0))`;
}

/**
 * Locks the per-status counts (kept by a trigger on issues) before a write that moves an issue
 * between statuses. Closing takes open then closed, reopening closed then open: without one
 * order for both, two nodes doing one each at once would wait on each other for good. Every
 * writer takes its issue rows first and these last, then waits on nothing more.
 */
async function lockStatusCounts(tx: PostgresSql): Promise<void> {
  const locked = await tx`SELECT status FROM issue_status_counts ORDER BY status FOR UPDATE`;
  if (locked.length === 3) return;
  // A new database has no count yet: made once, then locked like the others.
  await tx`INSERT INTO issue_status_counts (status, n)
    VALUES ('closed', 0), ('open', 0), ('work_in_progress', 0) ON CONFLICT (status) DO NOTHING`;
  await tx`SELECT status FROM issue_status_counts ORDER BY status FOR UPDATE`;
}

const unclosedOf = async (q: PostgresSql, p: FailurePattern) =>
  (
    await q`SELECT * FROM issues WHERE destination_id = ${p.destinationId}
      AND error_type = ${p.errorType} AND error_code = ${p.errorCode} AND bridge_id = ${p.bridgeId}
      AND organization_id = ${p.organizationId} AND status <> 'closed' FOR UPDATE`
  ).map(toIssue)[0] as IssueRecord | undefined;

// Locked: the retention sweep may be deleting it (then the failure opens a new issue).
const latestClosedOf = async (q: PostgresSql, p: FailurePattern) =>
  (
    await q`SELECT * FROM issues WHERE destination_id = ${p.destinationId}
      AND error_type = ${p.errorType} AND error_code = ${p.errorCode} AND bridge_id = ${p.bridgeId}
      AND organization_id = ${p.organizationId} AND status = 'closed'
      ORDER BY resolved_at DESC, id DESC LIMIT 1 FOR UPDATE`
  ).map(toIssue)[0] as IssueRecord | undefined;

async function insertIssue(q: PostgresSql, i: IssueRecord): Promise<void> {
  await q`INSERT INTO issues (id, organization_id, bridge_id, destination_id, status, error_type,
      error_code, error_message, occurrence_count, first_occurrence_at, last_occurrence_at,
      opened_at, resolved_at, last_success_at, created_at, updated_at)
    VALUES (${i.id}, ${i.organizationId}, ${i.bridgeId}, ${i.destinationId}, ${i.status},
      ${i.errorType}, ${i.errorCode}, ${i.errorMessage}, ${i.occurrenceCount},
      ${i.firstOccurrenceAt}, ${i.lastOccurrenceAt}, ${i.openedAt}, ${i.resolvedAt},
      ${i.lastSuccessAt}, ${i.createdAt}, ${i.updatedAt})`;
}

async function updateIssue(q: PostgresSql, i: IssueRecord): Promise<void> {
  await q`UPDATE issues SET status = ${i.status}, error_message = ${i.errorMessage},
      occurrence_count = ${i.occurrenceCount}, last_occurrence_at = ${i.lastOccurrenceAt},
      opened_at = ${i.openedAt}, resolved_at = ${i.resolvedAt}, last_success_at = ${i.lastSuccessAt},
      updated_at = ${i.updatedAt}
    WHERE id = ${i.id}`;
}

async function addSample(q: PostgresSql, s: IssueSample, trimTo: number | null): Promise<void> {
  await q`INSERT INTO issue_samples (id, issue_id, event_id, delivery_id, attempt, status_code,
      response_excerpt, error_type, error_code, error_message, occurred_at)
    VALUES (${s.attemptId}, ${s.issueId}, ${s.eventId}, ${s.deliveryId}, ${s.attempt},
      ${s.statusCode}, ${s.responseExcerpt}, ${s.errorType}, ${s.errorCode}, ${s.errorMessage},
      ${s.occurredAt})
    ON CONFLICT (id) DO NOTHING`;
  if (trimTo === null) return;
  await q`DELETE FROM issue_samples WHERE issue_id = ${s.issueId} AND id NOT IN (
      SELECT id FROM issue_samples WHERE issue_id = ${s.issueId}
       ORDER BY occurred_at DESC, id DESC LIMIT ${trimTo})`;
}

/**
 * Joins a failure to its pattern's issue inside the caller's transaction (the attempt's, when
 * the delivery room records one): the issue's count commits with the attempt or not at all.
 */
export async function groupFailurePostgres(
  tx: PostgresSql,
  failure: RecordedFailure,
  fresh: FreshIssue,
): Promise<GroupedFailure> {
  const { pattern } = failure;
  await lockPattern(tx, pattern);
  const existing = (await unclosedOf(tx, pattern)) ?? (await latestClosedOf(tx, pattern)) ?? null;
  const change = applyOccurrence(
    existing,
    { pattern, message: failure.message, at: failure.occurredAt },
    fresh,
  );
  if (change.kind !== "occurred") await lockStatusCounts(tx);
  if (change.kind === "created") await insertIssue(tx, change.issue);
  else await updateIssue(tx, change.issue);
  await addSample(tx, sampleOf(failure, change.issue.id), sampleTrim(change.issue.occurrenceCount));
  return change;
}

/** A success to a destination, on its unclosed issues opened before it; returns how many. */
export async function recordSuccessPostgres(
  q: PostgresSql,
  destinationId: string,
  at: string,
  now: string,
): Promise<number> {
  // Rows locked in id order: two successes to one destination never wait on each other.
  const updated = await q`UPDATE issues SET last_success_at = ${at}, updated_at = ${now}
    WHERE id IN (SELECT id FROM issues WHERE destination_id = ${destinationId}
      AND status <> 'closed' AND opened_at <= ${at}
      AND (last_success_at IS NULL OR last_success_at < ${at}) ORDER BY id FOR UPDATE)`;
  return updated.count;
}

/** The destination's unclosed issues, read in `q` (a listener's transaction sees its own change). */
export async function unclosedOfDestinationPostgres(
  q: PostgresSql,
  organizationId: string,
  destinationId: string,
): Promise<IssueRecord[]> {
  return (
    await q`SELECT * FROM issues WHERE destination_id = ${destinationId}
      AND organization_id = ${organizationId} AND status <> 'closed' ORDER BY opened_at, id`
  ).map(toIssue);
}

/** The issues' store over PostgreSQL; the pattern lock decides races between nodes. */
export function createIssuesPostgresStore(pg: PostgresDb): IssuesStore {
  const { sql } = pg;
  return {
    recordFailure: (failure, fresh) =>
      sql.begin((tx: PostgresTx) => groupFailurePostgres(tx, failure, fresh)),
    recordSuccess: (destinationId, at, now) => recordSuccessPostgres(sql, destinationId, at, now),
    find: async (organizationId, id) =>
      (
        await sql`SELECT * FROM issues WHERE id = ${id} AND organization_id = ${organizationId}`
      ).map(toIssue)[0] ?? null,
    list: async (organizationId, query, page) => {
      const status = query.status ?? null;
      const bridgeId = query.bridgeId ?? null;
      const destinationId = query.destinationId ?? null;
      // A filter not given (null) matches every row.
      const [counted] = await sql`SELECT count(*) AS n FROM issues
        WHERE organization_id = ${organizationId}
          AND (${status}::text IS NULL OR status = ${status})
          AND (${bridgeId}::text IS NULL OR bridge_id = ${bridgeId})
          AND (${destinationId}::text IS NULL OR destination_id = ${destinationId})`;
      const rows = await sql`SELECT * FROM issues
        WHERE organization_id = ${organizationId}
          AND (${status}::text IS NULL OR status = ${status})
          AND (${bridgeId}::text IS NULL OR bridge_id = ${bridgeId})
          AND (${destinationId}::text IS NULL OR destination_id = ${destinationId})
        ORDER BY last_occurrence_at DESC, id DESC LIMIT ${page.limit} OFFSET ${page.offset}`;
      return { items: rows.map(toIssue), total: Number(counted?.n ?? 0) };
    },
    samples: async (issueId, limit) =>
      (
        await sql`SELECT * FROM issue_samples WHERE issue_id = ${issueId}
          ORDER BY occurred_at DESC, id DESC LIMIT ${limit}`
      ).map(toSample),
    changeStatus: async (organizationId, issueId, decide) => {
      try {
        return await sql.begin(async (tx: PostgresTx) => {
          const seen = (
            await tx`SELECT * FROM issues WHERE id = ${issueId} AND organization_id = ${organizationId}`
          ).map(toIssue)[0];
          if (!seen) return { outcome: "not_found" } as const;
          // A pattern never changes: lock it, then read the row again under the lock.
          await lockPattern(tx, seen);
          const issue = (await tx`SELECT * FROM issues WHERE id = ${issueId} FOR UPDATE`).map(
            toIssue,
          )[0];
          if (!issue) return { outcome: "not_found" } as const;
          const changed = decide(issue);
          if (changed === issue) return { outcome: "unchanged", issue } as const;
          if (issue.status === "closed") {
            const other = await unclosedOf(tx, issue);
            if (other && other.id !== issue.id) return { outcome: "already_open" } as const;
          }
          if (changed.status !== issue.status) await lockStatusCounts(tx);
          await updateIssue(tx, changed);
          return { outcome: "changed", issue: changed } as const;
        });
      } catch (error) {
        // The pattern lock makes this unreachable between Weir nodes; the index still decides.
        if ((error as { errno?: unknown } | null)?.errno === UNIQUE_VIOLATION) {
          return { outcome: "already_open" } as const;
        }
        throw error;
      }
    },
    listUnclosedOfDestination: (organizationId, destinationId) =>
      unclosedOfDestinationPostgres(sql, organizationId, destinationId),
    listUnclosedOpenedBefore: async (organizationId, openedBefore, limit) =>
      (
        await sql`SELECT * FROM issues WHERE organization_id = ${organizationId}
          AND status <> 'closed' AND opened_at <= ${openedBefore}
          ORDER BY opened_at, id LIMIT ${limit}`
      ).map(toIssue),
    countByStatus: async () =>
      (await sql`SELECT status, n FROM issue_status_counts ORDER BY status`).map((r: Row) => ({
        status: r.status as IssueStatus,
        n: Number(r.n),
      })),
    tenantsWithClosedIssues: async () =>
      (
        await sql`SELECT o.id, o.plan FROM organizations o
          WHERE EXISTS (SELECT 1 FROM issues i WHERE i.organization_id = o.id AND i.status = 'closed')`
      ).map((r: Row) => ({ id: r.id as string, plan: (r.plan as string | null) ?? "free" })),
    deleteClosedBefore: (organizationId, before, limit) =>
      sql.begin(async (tx: PostgresTx) => {
        const ids = (
          await tx`SELECT id FROM issues WHERE status = 'closed' AND resolved_at < ${before}
            AND organization_id = ${organizationId} ORDER BY id LIMIT ${limit} FOR UPDATE`
        ).map((r: Row) => r.id as string);
        if (ids.length === 0) return 0;
        await lockStatusCounts(tx);
        return (await tx`DELETE FROM issues WHERE id = ANY(${ids}::text[])`).count;
      }),
  };
}
