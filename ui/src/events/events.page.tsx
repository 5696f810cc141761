import { useEffect, useId, useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Select } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { Pager } from "../kit/pager.tsx";
import { Time, useNow } from "../kit/time.tsx";
import { fromLocalInput, toLocalInput } from "../kit/time-input.ts";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { useQueryState, writeQuery } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { EVENT_STATUSES, EventStatusBadge, eventStatusLabel } from "./event-status.tsx";
import {
  type EventRow,
  listBridgeRefs,
  listEvents,
  listSourceRefs,
  retryEvents,
} from "./events.api.ts";
import { overlayFresh } from "./fresh.ts";
import { formatDuration, type Latency, latencyOf } from "./latency.ts";

const DEFAULTS = { status: "", source_id: "", bridge_id: "", since: "", until: "", page: "1" };
/** Without a realtime topic for events, the first page is read again this often. */
const POLL_MS = 5_000;

/** Every event of the organization, newest first, narrowed by filters kept in the URL. */
export function EventsPage() {
  const { api, org, notify } = useApp();
  const now = useNow();
  const [query, setQuery] = useQueryState(DEFAULTS);
  const { page: pageText, ...filters } = query;
  const page = Math.max(1, Number(pageText) || 1);
  const events = useData(`events:${JSON.stringify(query)}`, (signal) =>
    listEvents(api, filters, page, signal),
  );
  const refs = useData("event-refs", async (signal) => {
    const [sources, bridges] = await Promise.all([
      listSourceRefs(api, signal),
      listBridgeRefs(api, signal),
    ]);
    return { sources, bridges };
  });
  const [confirming, setConfirming] = useState(false);
  const [bulkError, setBulkError] = useState("");
  const filtered = Object.values(filters).some(Boolean);

  // Rows on screen follow their events; new events on the first page are counted, then shown
  // when asked, so the list does not move under the reader.
  const [newCount, setNewCount] = useState(0);
  const shown = events.data;
  useEffect(() => {
    setNewCount(0);
    const timer = setInterval(async () => {
      if (!shown) return;
      try {
        const fresh = await listEvents(api, filters, page);
        const overlay = overlayFresh(shown.data, fresh.data);
        if (overlay.rows !== shown.data) events.set({ ...shown, data: overlay.rows });
        setNewCount(page === 1 ? overlay.newCount : 0);
      } catch {
        // A missed poll is retried at the next tick; the list on screen stays.
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [shown, page]);

  const sourceName = (id: string) => refs.data?.sources.find((s) => s.id === id)?.name ?? id;
  const bridgeName = (id: string | null) =>
    id ? (refs.data?.bridges.find((b) => b.id === id)?.name ?? id) : "—";

  const columns: Column<EventRow>[] = [
    { label: "Status", cell: (e) => <EventStatusBadge status={e.status} /> },
    {
      label: "Request",
      cell: (e) => (
        <Link href={`/events/${e.id}`} class="mono">
          {e.request.method} {e.request.path || "/"}
        </Link>
      ),
    },
    { label: "Source", cell: (e) => sourceName(e.source_id) },
    { label: "Bridge", cell: (e) => bridgeName(e.bridge_id) },
    { label: "Received", cell: (e) => <Time iso={e.created_at} now={now} /> },
    { label: "Latency", cell: (e) => <LatencyCell latency={latencyOf(e, now)} /> },
  ];

  async function retryMatching() {
    setBulkError("");
    try {
      const result = await retryEvents(api, filters);
      notify(`Retry started: ${result.requeued} deliveries made due now`);
      events.refetch();
    } catch (error) {
      setBulkError(errorText(error));
    }
  }

  const total = events.data?.total ?? 0;
  return (
    <main id="main" class="page">
      <div class="page-head">
        <h1>Events</h1>
        <p class="muted small" aria-live="polite">
          Checked every {POLL_MS / 1000} s{events.refreshing ? " · Refreshing…" : ""}
        </p>
      </div>
      <form class="filter-bar event-filters" onSubmit={(e) => e.preventDefault()}>
        <Select
          label="Status"
          name="status"
          value={filters.status}
          options={[
            { value: "", label: "Any status" },
            ...EVENT_STATUSES.map((s) => ({ value: s, label: eventStatusLabel(s) })),
          ]}
          onChange={(status) => setQuery({ status })}
        />
        <Select
          label="Source"
          name="source_id"
          value={filters.source_id}
          options={[
            { value: "", label: "Any source" },
            ...(refs.data?.sources ?? []).map((s) => ({ value: s.id, label: s.name })),
          ]}
          onChange={(source_id) => setQuery({ source_id })}
        />
        <Select
          label="Bridge"
          name="bridge_id"
          value={filters.bridge_id}
          options={[
            { value: "", label: "Any bridge" },
            ...(refs.data?.bridges ?? []).map((b) => ({ value: b.id, label: b.name })),
          ]}
          onChange={(bridge_id) => setQuery({ bridge_id })}
        />
        <TimeFilter label="From" value={filters.since} onChange={(since) => setQuery({ since })} />
        <TimeFilter label="To" value={filters.until} onChange={(until) => setQuery({ until })} />
        {canWrite(org) ? (
          <div class="field filter-action">
            <button
              type="button"
              class="button"
              disabled={total === 0}
              onClick={() => setConfirming(true)}
            >
              Retry matching events
            </button>
          </div>
        ) : null}
      </form>
      {bulkError ? <Notice kind="error">{bulkError}</Notice> : null}
      {newCount > 0 ? (
        <p class="notice notice-info" role="status">
          {newCount} new {newCount === 1 ? "event" : "events"} ·{" "}
          <button type="button" class="button small" onClick={events.refetch}>
            Show
          </button>
        </p>
      ) : null}
      <Loaded data={events} what="events">
        {(list) =>
          list.data.length === 0 ? (
            filtered ? (
              <p class="empty">
                No events match these filters.{" "}
                <button
                  type="button"
                  class="button small"
                  onClick={() => setQuery({ ...DEFAULTS, page: "1" })}
                >
                  Clear filters
                </button>
              </p>
            ) : (
              <p class="empty">
                No events yet. Send a request to a source's ingest URL (
                <Link href="/sources">Sources</Link>).
              </p>
            )
          ) : (
            <>
              <p class="muted small">
                {list.total} {list.total === 1 ? "event" : "events"}
              </p>
              <DataTable caption="Events" columns={columns} rows={list.data} rowKey={(e) => e.id} />
              <Pager
                page={page}
                pageSize={list.page_size}
                total={list.total}
                href={(p) => `/events${writeQuery({ ...query, page: String(p) }, DEFAULTS)}`}
              />
            </>
          )
        }
      </Loaded>
      {confirming ? (
        <ConfirmDialog
          title={`Retry ${total} ${total === 1 ? "event" : "events"}?`}
          confirmLabel="Retry"
          onConfirm={retryMatching}
          onClose={() => setConfirming(false)}
        >
          <p>
            Failed deliveries of the events these filters select are sent again, and those waiting
            for their next attempt are sent now. Delivered ones are left alone.
          </p>
        </ConfirmDialog>
      ) : null}
    </main>
  );
}

function LatencyCell(props: { latency: Latency }) {
  const { latency } = props;
  if (!latency) return <span class="muted">—</span>;
  const text = formatDuration(latency.ms);
  return latency.running ? <span>{text} so far</span> : <span>{text}</span>;
}

function TimeFilter(props: { label: string; value: string; onChange: (iso: string) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type="datetime-local"
        value={toLocalInput(props.value)}
        onChange={(e) =>
          props.onChange(fromLocalInput((e.currentTarget as HTMLInputElement).value))
        }
      />
    </div>
  );
}
