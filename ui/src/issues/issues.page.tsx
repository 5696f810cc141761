import { type Column, DataTable } from "../kit/data-table.tsx";
import { Select } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Pager } from "../kit/pager.tsx";
import { Time, useNow } from "../kit/time.tsx";
import { useApp } from "../lib/context.ts";
import { useQueryState, writeQuery } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { ISSUE_STATUS, ISSUE_STATUSES, IssueStatusBadge } from "./issue-status.tsx";
import { type Issue, listBridgeNames, listIssues } from "./issues.api.ts";

const DEFAULTS = { status: "open", bridge_id: "", page: "1" };

/** Failed deliveries grouped into issues, by status, with how many each status holds. */
export function IssuesPage() {
  const { api } = useApp();
  const now = useNow();
  const [query, setQuery] = useQueryState(DEFAULTS);
  const page = Math.max(1, Number(query.page) || 1);
  const issues = useData(`issues:${JSON.stringify(query)}`, (signal) =>
    listIssues(api, { status: query.status, bridge_id: query.bridge_id, page }, signal),
  );
  const counts = useData(`issue-counts:${query.bridge_id}`, async (signal) => {
    const totals = await Promise.all(
      ISSUE_STATUSES.map((status) =>
        listIssues(api, { status, bridge_id: query.bridge_id, page: 1, page_size: 1 }, signal),
      ),
    );
    return Object.fromEntries(
      ISSUE_STATUSES.map((s, i) => [s, totals[i]?.pagination.total_records ?? 0]),
    );
  });
  const bridges = useData("issue-bridges", (signal) => listBridgeNames(api, signal));
  const destination = (issue: Issue) => {
    const bridge = bridges.data?.find((b) => b.id === issue.bridge_id);
    const d = bridge?.destinations.find((x) => x.id === issue.destination_id);
    return { bridge: bridge?.name ?? "", destination: d ? `${d.name} (${d.type})` : "" };
  };
  const columns: Column<Issue>[] = [
    {
      label: "Issue",
      cell: (i) => (
        <Link href={`/issues/${i.id}`}>
          {destination(i).destination || "Destination"}: {i.error_type}
          {i.error_code ? ` ${i.error_code}` : ""}
        </Link>
      ),
    },
    { label: "Status", cell: (i) => <IssueStatusBadge status={i.status} /> },
    { label: "Bridge", cell: (i) => destination(i).bridge },
    { label: "Failures", cell: (i) => i.occurrence_count },
    { label: "Last failure", cell: (i) => <Time iso={i.last_occurrence_at} now={now} /> },
  ];
  return (
    <main id="main" class="page">
      <h1>Issues</h1>
      <nav class="status-tabs" aria-label="Issue status">
        {ISSUE_STATUSES.map((s) => (
          <Link
            key={s}
            href={`/issues${writeQuery({ ...query, status: s, page: "1" }, DEFAULTS)}`}
            aria-current={query.status === s ? "page" : undefined}
          >
            {ISSUE_STATUS[s].label} ({counts.data?.[s] ?? "…"})
          </Link>
        ))}
      </nav>
      <form class="filter-bar" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Bridge"
          name="bridge_id"
          value={query.bridge_id}
          options={[
            { value: "", label: "Any bridge" },
            ...(bridges.data ?? []).map((b) => ({ value: b.id, label: b.name })),
          ]}
          onChange={(bridge_id) => setQuery({ bridge_id })}
        />
      </form>
      <Loaded data={issues} what="issues">
        {(list) =>
          list.items.length === 0 ? (
            <p class="empty">
              No {ISSUE_STATUS[query.status as Issue["status"]]?.label.toLowerCase() ?? ""} issues
              {query.bridge_id ? " for this bridge" : ""}.
            </p>
          ) : (
            <>
              <DataTable
                caption="Issues"
                columns={columns}
                rows={list.items}
                rowKey={(i) => i.id}
              />
              <Pager
                page={page}
                pageSize={list.pagination.page_size}
                total={list.pagination.total_records}
                href={(p) => `/issues${writeQuery({ ...query, page: String(p) }, DEFAULTS)}`}
              />
            </>
          )
        }
      </Loaded>
    </main>
  );
}
