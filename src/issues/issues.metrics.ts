import { ISSUE_STATUSES } from "./issues.model.ts";
import type { IssueStatus } from "./issues.ports.ts";

/** Issues in Prometheus text: how many each status has, every status listed (0 when none). */
export function renderIssueMetrics(
  counts: readonly { status: IssueStatus; n: number }[],
): string[] {
  return [
    "# HELP weir_issues Issues (failed deliveries grouped) by status, across organizations.",
    "# TYPE weir_issues gauge",
    ...ISSUE_STATUSES.map(
      (status) =>
        `weir_issues{status="${status}"} ${counts.find((c) => c.status === status)?.n ?? 0}`,
    ),
  ];
}
