import { useState } from "preact/hooks";
import { Link } from "../kit/link.tsx";
import { Loaded, NotFound } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { Time, useNow } from "../kit/time.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { ISSUE_STATUS, ISSUE_STATUSES, IssueStatusBadge } from "./issue-status.tsx";
import { getIssue, type IssueStatus, setIssueStatus } from "./issues.api.ts";

/** One issue: its route, its latest failures with links to their events, and its status. */
export function IssuePage({ issueId }: { issueId: string }) {
  const { api, org, notify } = useApp();
  const now = useNow();
  const issue = useData(`issue:${issueId}`, (signal) => getIssue(api, issueId, signal));
  const [statusError, setStatusError] = useState("");
  if (issue.state === "failed" && issue.error?.status === 404)
    return <NotFound what="Issue" listHref="/issues" listLabel="Back to issues" />;

  // One click, undoable: shown at once, put back if the server refuses.
  async function move(to: IssueStatus) {
    const before = issue.data;
    if (!before) return;
    setStatusError("");
    issue.set({ ...before, status: to });
    try {
      const saved = await setIssueStatus(api, before.id, to);
      issue.set({ ...before, ...saved });
      notify(`Issue marked ${ISSUE_STATUS[to].label.toLowerCase()}`);
    } catch (error) {
      issue.set(before);
      setStatusError(errorText(error));
    }
  }

  return (
    <main id="main" class="page narrow">
      <p class="crumbs">
        <Link href="/issues">Issues</Link> /
      </p>
      <Loaded data={issue} what="the issue">
        {(i) => (
          <>
            <div class="page-head">
              <h1>
                {i.destination_name}: {i.error_type}
                {i.error_code ? ` ${i.error_code}` : ""}
              </h1>
              <IssueStatusBadge status={i.status} />
            </div>
            <p>
              Bridge <Link href={`/bridges/${i.bridge_id}`}>{i.bridge_name}</Link> (source{" "}
              {i.source_name}) to {i.destination_name} ({i.destination_type}, priority{" "}
              {i.destination_priority})
            </p>
            <p>{i.error_message}</p>
            <p class="muted">
              {i.occurrence_count} failures since <Time iso={i.first_occurrence_at} now={now} />,
              the last <Time iso={i.last_occurrence_at} now={now} />
              {i.last_success_at ? (
                <>
                  ; delivered again <Time iso={i.last_success_at} now={now} />
                </>
              ) : null}
              .
            </p>
            {canWrite(org) ? (
              <fieldset class="segmented">
                <legend>Status</legend>
                {ISSUE_STATUSES.map((s) => (
                  <button
                    key={s}
                    type="button"
                    class="button small"
                    aria-pressed={i.status === s}
                    onClick={() => i.status !== s && move(s)}
                  >
                    {ISSUE_STATUS[s].label}
                  </button>
                ))}
              </fieldset>
            ) : null}
            {statusError ? <Notice kind="error">{statusError}</Notice> : null}
            <h2>Recent failures</h2>
            {i.recent_attempts.length === 0 ? (
              <p class="empty">No failed attempts kept.</p>
            ) : (
              <ol class="timeline" aria-label="Recent failures">
                {i.recent_attempts.map((a) => (
                  <li key={a.attempt_id} class="attempt failed">
                    <p>
                      <Time iso={a.occurred_at} now={now} /> · attempt {a.attempt} ·{" "}
                      {a.status_code === null ? "no answer" : `HTTP ${a.status_code}`} · ✖{" "}
                      {a.error_type} · <Link href={`/events/${a.event_id}`}>Open event</Link>
                    </p>
                    {a.response_excerpt ? <pre class="code small">{a.response_excerpt}</pre> : null}
                  </li>
                ))}
              </ol>
            )}
          </>
        )}
      </Loaded>
    </main>
  );
}
