import { useEffect, useState } from "preact/hooks";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Select } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Sparkline } from "../kit/sparkline.tsx";
import { canWrite, useApp } from "../lib/context.ts";
import { navigate, useQueryState } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { MonitorForm } from "./monitor-form.tsx";
import {
  MONITOR_STATUSES,
  MonitorStatusBadge,
  monitorStatusLabel,
  uptimeText,
} from "./monitor-status.tsx";
import { listMonitors, type Monitor } from "./monitors.api.ts";
import { MONITOR_TYPES } from "./types/index.ts";

const DEFAULTS = { status: "", type: "" };
/** Monitors are re-read this often, so states change on screen without a reload. */
const POLL_MS = 15_000;

/** Every monitor with its state, uptime and last day's response times; filters in the URL. */
export function MonitorsPage() {
  const { api, org } = useApp();
  const [query, setQuery] = useQueryState(DEFAULTS);
  const monitors = useData("monitors", (signal) => listMonitors(api, signal));
  const [creating, setCreating] = useState(false);
  const writer = canWrite(org);
  const typeLabel = (type: string) =>
    MONITOR_TYPES[type as keyof typeof MONITOR_TYPES]?.label ?? type;
  const columns: Column<Monitor>[] = [
    { label: "Name", cell: (m) => <Link href={`/monitors/${m.id}`}>{m.name}</Link> },
    { label: "State", cell: (m) => <MonitorStatusBadge status={m.status} /> },
    { label: "Type", cell: (m) => typeLabel(m.type) },
    {
      label: "Uptime 24 h · 7 d · 30 d",
      cell: (m) =>
        `${uptimeText(m.uptime_24h)} · ${uptimeText(m.uptime_7d)} · ${uptimeText(m.uptime_30d)}`,
    },
    {
      label: "Response, 24 h",
      cell: (m) =>
        m.response_sparkline ? (
          <Sparkline values={m.response_sparkline} label={`Response time of ${m.name}, 24 h`} />
        ) : (
          "—"
        ),
    },
  ];
  usePoll(monitors.refetch);
  return (
    <main id="main" class="page">
      <div class="page-head">
        <h1>Monitors</h1>
        {writer ? (
          <button
            type="button"
            class="button primary"
            aria-expanded={creating}
            onClick={() => setCreating(!creating)}
          >
            New monitor
          </button>
        ) : null}
      </div>
      {creating ? (
        <MonitorForm
          onCancel={() => setCreating(false)}
          onSaved={(m) => navigate(`/monitors/${m.id}`)}
        />
      ) : null}
      <form class="filter-bar" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="State"
          name="status"
          value={query.status}
          options={[
            { value: "", label: "Any state" },
            ...MONITOR_STATUSES.map((s) => ({ value: s, label: monitorStatusLabel(s) })),
          ]}
          onChange={(status) => setQuery({ status })}
        />
        <Select
          label="Type"
          name="type"
          value={query.type}
          options={[
            { value: "", label: "Any type" },
            ...Object.keys(MONITOR_TYPES).map((t) => ({ value: t, label: typeLabel(t) })),
          ]}
          onChange={(type) => setQuery({ type })}
        />
      </form>
      <Loaded data={monitors} what="monitors">
        {(page) => {
          const shown = page.data.filter(
            (m) =>
              (!query.status || m.status === query.status) &&
              (!query.type || m.type === query.type),
          );
          if (page.data.length === 0) return <p class="empty">No monitors yet.</p>;
          if (shown.length === 0)
            return (
              <p class="empty">
                No monitors match these filters.{" "}
                <button type="button" class="button small" onClick={() => setQuery(DEFAULTS)}>
                  Clear filters
                </button>
              </p>
            );
          return (
            <>
              <p class="muted">
                {shown.length} of {page.total} monitors
                {page.total > page.data.length ? ` (the first ${page.data.length} are listed)` : ""}
              </p>
              <DataTable caption="Monitors" columns={columns} rows={shown} rowKey={(m) => m.id} />
            </>
          );
        }}
      </Loaded>
    </main>
  );
}

/** States move by themselves: the list is read again while it is open. */
function usePoll(refetch: () => void) {
  useEffect(() => {
    const timer = setInterval(refetch, POLL_MS);
    return () => clearInterval(timer);
  }, [refetch]);
}
