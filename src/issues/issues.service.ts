import type { PageRequest } from "../db/db.pagination.ts";
import type { DestinationDescription } from "../routing/routing.room.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { conflict, type FieldErrors, notFound, validationFailed } from "../shared/errors.ts";
import { contextOf } from "./issues.grouping.ts";
import {
  applyStatusChange,
  ISSUE_SAMPLE_LIMIT,
  ISSUE_STATUSES,
  isIssueStatus,
} from "./issues.model.ts";
import type { IssueRecord } from "./issues.ports.ts";
import type { IssueQuery, IssuesStore } from "./issues.store.ts";

export interface IssuesDeps {
  store: IssuesStore;
  clock: Clock;
  /** The names an issue shows (on PostgreSQL read through the bridges store, so awaited). */
  describeDestination(
    destinationId: string,
  ): DestinationDescription | null | Promise<DestinationDescription | null>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads the list filters of `GET /issues`; a bad value is a 422 naming the parameter. */
export function parseIssueQuery(query: Record<string, unknown>): IssueQuery {
  const errors: FieldErrors = {};
  const out: IssueQuery = {};
  const status = query.status;
  if (status !== undefined && status !== "") {
    if (isIssueStatus(status)) out.status = status;
    else errors.status = [`must be one of ${ISSUE_STATUSES.join(", ")}`];
  }
  for (const [name, key] of [
    ["bridge_id", "bridgeId"],
    ["destination_id", "destinationId"],
  ] as const) {
    const value = query[name];
    if (value === undefined || value === "") continue;
    if (typeof value === "string" && UUID.test(value)) out[key] = value.toLowerCase();
    else errors[name] = ["must be a bridge or destination id (a UUID)"];
  }
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  return out;
}

export function listIssues(
  organizationId: string,
  query: IssueQuery,
  page: PageRequest,
  deps: Pick<IssuesDeps, "store">,
) {
  return deps.store.list(organizationId, query, { limit: page.pageSize, offset: page.offset });
}

/** The caller's issue or a 404 (another organization's issue is a 404 too). */
export async function requireIssue(
  organizationId: string,
  issueId: string,
  deps: Pick<IssuesDeps, "store">,
): Promise<IssueRecord> {
  const issue = await deps.store.find(organizationId, issueId);
  if (!issue) throw notFound();
  return issue;
}

/** An issue with the names of its route and its latest failed attempts. */
export async function getIssueDetail(organizationId: string, issueId: string, deps: IssuesDeps) {
  const issue = await requireIssue(organizationId, issueId, deps);
  return {
    issue,
    context: contextOf(await deps.describeDestination(issue.destinationId)),
    samples: await deps.store.samples(issue.id, ISSUE_SAMPLE_LIMIT),
  };
}

/** Reads a PATCH body: `{status}` with one of the three statuses, else a 422. */
export function parseStatusChange(body: unknown) {
  const status = (body as { status?: unknown } | null)?.status;
  if (isIssueStatus(status)) return status;
  throw validationFailed({
    status: [status === undefined ? "is required" : `must be one of ${ISSUE_STATUSES.join(", ")}`],
  });
}

/**
 * PATCH `{status}` (decisions.md §8): every move between open, work_in_progress and closed.
 * Reopening is refused with a 409 only when the same failure pattern already has another issue
 * that is not closed, since a pattern has one such issue at a time.
 */
export async function changeIssueStatus(
  organizationId: string,
  issueId: string,
  body: unknown,
  deps: Pick<IssuesDeps, "store" | "clock">,
): Promise<IssueRecord> {
  const status = parseStatusChange(body);
  const now = isoAt(deps.clock.now());
  const result = await deps.store.changeStatus(organizationId, issueId, (issue) =>
    applyStatusChange(issue, status, now),
  );
  if (result.outcome === "not_found") throw notFound();
  if (result.outcome === "already_open") throw conflict("issue_already_open");
  return result.issue;
}
