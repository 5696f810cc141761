import { Elysia, t } from "elysia";
import { requirePermission } from "../auth/auth.guard.ts";
import type { AuthPorts } from "../auth/auth.room.ts";
import { pageInfo, parsePageRequest } from "../db/db.pagination.ts";
import {
  documentedQuery,
  ErrorBody,
  PAGE_QUERY,
  ValidationErrorBody,
} from "../http/http.openapi.ts";
import { ISSUE_STATUSES } from "./issues.model.ts";
import { presentIssue, presentIssueDetail } from "./issues.present.ts";
import {
  changeIssueStatus,
  getIssueDetail,
  type IssuesDeps,
  listIssues,
  parseIssueQuery,
} from "./issues.service.ts";

const tags = ["issues"];
const security: Record<string, string[]>[] = [{ bearer: [] }, { apiKey: [] }];
const errorResponses = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 422: ValidationErrorBody };
const Nullable = <T extends Parameters<typeof t.Nullable>[0]>(schema: T) => t.Nullable(schema);
const Status = t.Union([t.Literal("open"), t.Literal("work_in_progress"), t.Literal("closed")]);

const issueFields = {
  id: t.String(),
  bridge_id: t.String(),
  destination_id: t.String(),
  status: Status,
  error_type: t.String({ description: "decisions.md §8 values, e.g. http_error" }),
  error_code: t.String({ description: "e.g. the HTTP status as text, timeout, circuit_open" }),
  error_message: t.String({ description: "The message of the latest occurrence." }),
  occurrence_count: t.Integer(),
  first_occurrence_at: t.String(),
  last_occurrence_at: t.String(),
  opened_at: t.String({ description: "Creation, or the latest reopening." }),
  resolved_at: Nullable(t.String()),
  last_success_at: Nullable(
    t.String({ description: "The latest successful delivery to the destination since opened_at." }),
  ),
  created_at: t.String(),
  updated_at: t.String(),
};
const IssueSchema = t.Object(issueFields);
const AttemptSchema = t.Object({
  attempt_id: t.String(),
  event_id: t.String(),
  delivery_id: t.String(),
  attempt: t.Integer(),
  status_code: Nullable(t.Integer()),
  response_excerpt: t.String({ description: "The first 1024 characters of the answer." }),
  error_type: t.String(),
  error_code: t.String(),
  error_message: t.String(),
  occurred_at: t.String(),
});
const issueDetailFields = {
  ...issueFields,
  bridge_name: t.String(),
  source_name: t.String(),
  destination_name: t.String(),
  destination_type: t.String(),
  destination_priority: t.String(),
  recent_attempts: t.Array(AttemptSchema, {
    description: "The latest failed attempts, newest first.",
  }),
};
const IssueDetailSchema = t.Object(issueDetailFields);

const IssuePage = t.Object({
  items: t.Array(IssueSchema),
  pagination: t.Object({
    current_page: t.Integer(),
    page_size: t.Integer(),
    total_pages: t.Integer(),
    total_records: t.Integer(),
  }),
});

export interface IssuesRoutesParts {
  guard: AuthPorts["guard"];
  issues: IssuesDeps;
}

/** The filters parseIssueQuery reads, for the reference (it validates them itself). */
const IssueListQuery = t.Object({
  ...PAGE_QUERY,
  status: t.Optional(t.Union(ISSUE_STATUSES.map((s) => t.Literal(s)))),
  bridge_id: t.Optional(t.String({ format: "uuid", description: "Issues of this bridge." })),
  destination_id: t.Optional(
    t.String({ format: "uuid", description: "Issues of this destination." }),
  ),
});

/** Issues (interface.md "Issues", decisions.md §5 and §8): members read, admins change status. */
export function issuesRoutes(room: IssuesRoutesParts) {
  const deps = room.issues;
  return new Elysia({ prefix: "/api/v1/issues" })
    .use(room.guard())
    .get(
      "/",
      async ({ principal, query }) => {
        const page = parsePageRequest(query);
        const filters = parseIssueQuery(query);
        const { items, total } = await listIssues(principal.organizationId, filters, page, deps);
        const info = pageInfo(page, total);
        return {
          items: items.map(presentIssue),
          pagination: {
            current_page: info.page,
            page_size: info.pageSize,
            total_pages: info.totalPages,
            total_records: info.total,
          },
        };
      },
      {
        response: { 200: IssuePage, ...errorResponses },
        detail: {
          tags,
          security,
          summary:
            "List issues, latest occurrence first (page, page_size, status, bridge_id, destination_id)",
          ...documentedQuery(IssueListQuery),
        },
      },
    )
    .get(
      "/:id",
      async ({ principal, params }) => {
        const { issue, context, samples } = await getIssueDetail(
          principal.organizationId,
          params.id,
          deps,
        );
        // Bare, not under `data`: issues keep their own shapes (decisions.md §5).
        return presentIssueDetail(issue, context, samples);
      },
      {
        response: { 200: IssueDetailSchema, ...errorResponses },
        detail: { tags, security, summary: "Get an issue with its latest failed attempts" },
      },
    )
    .patch(
      "/:id",
      async ({ principal, params, body }) => {
        requirePermission(principal, "write");
        return presentIssue(
          await changeIssueStatus(principal.organizationId, params.id, body, deps),
        );
      },
      {
        response: { 200: IssueSchema, 409: ErrorBody, ...errorResponses },
        detail: {
          tags,
          security,
          summary: "Change an issue's status (admin)",
          description:
            "Any move between open, work_in_progress and closed. Closing sets resolved_at; leaving closed clears it. 409 issue_already_open when reopening while the same failure already has an open issue.",
          requestBody: {
            description: "`{status: open|work_in_progress|closed}`",
            required: true,
            content: {
              "application/json": {
                schema: {
                  type: "object" as const,
                  required: ["status"],
                  properties: {
                    status: { type: "string", enum: ["open", "work_in_progress", "closed"] },
                  },
                },
                example: { status: "work_in_progress" },
              },
            },
          },
        },
      },
    );
}
