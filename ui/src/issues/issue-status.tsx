import type { IssueStatus } from "./issues.api.ts";

export const ISSUE_STATUS: Record<IssueStatus, { icon: string; label: string; tone: string }> = {
  open: { icon: "✖", label: "Open", tone: "danger" },
  work_in_progress: { icon: "◐", label: "In progress", tone: "warn" },
  closed: { icon: "✔", label: "Closed", tone: "ok" },
};
export const ISSUE_STATUSES = Object.keys(ISSUE_STATUS) as IssueStatus[];

export function IssueStatusBadge(props: { status: IssueStatus }) {
  const s = ISSUE_STATUS[props.status];
  return (
    <span class={`badge tone-${s.tone}`}>
      <span aria-hidden="true">{s.icon}</span> {s.label}
    </span>
  );
}
