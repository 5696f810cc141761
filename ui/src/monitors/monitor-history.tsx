import { type Column, DataTable } from "../kit/data-table.tsx";
import { LineChart } from "../kit/line-chart.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Pager } from "../kit/pager.tsx";
import { Time } from "../kit/time.tsx";
import { useApp } from "../lib/context.ts";
import { writeQuery } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { chartPoints } from "./chart-points.ts";
import { MonitorStatusBadge, monitorStatusLabel } from "./monitor-status.tsx";
import {
  type Check,
  listChecks,
  listRollups,
  listStateEvents,
  type Range,
} from "./monitors.api.ts";

export const RANGES: { value: Range; label: string }[] = [
  { value: "24h", label: "24 h" },
  { value: "7d", label: "7 days" },
  { value: "30d", label: "30 days" },
];

/** The response-time chart over the range the URL names. */
export function ResponseChart(props: {
  monitorId: string;
  range: Range;
  onRange: (range: Range) => void;
  round: number;
}) {
  const { api } = useApp();
  const rollups = useData(`rollups:${props.monitorId}:${props.range}:${props.round}`, (signal) =>
    listRollups(api, props.monitorId, props.range, signal),
  );
  const label = RANGES.find((r) => r.value === props.range)?.label ?? props.range;
  return (
    <section aria-labelledby="chart-title">
      <h2 id="chart-title">Response time</h2>
      <fieldset class="segmented">
        <legend class="visually-hidden">Range</legend>
        {RANGES.map((r) => (
          <button
            key={r.value}
            type="button"
            class="button small"
            aria-pressed={r.value === props.range}
            onClick={() => props.onRange(r.value)}
          >
            {r.label}
          </button>
        ))}
      </fieldset>
      <Loaded data={rollups} what="response times">
        {(buckets) => (
          <LineChart
            points={chartPoints(buckets, props.range, Date.now())}
            title={`Response time, ${label}`}
          />
        )}
      </Loaded>
    </section>
  );
}

/** State changes, newest first. */
export function StateTimeline(props: { monitorId: string; round: number }) {
  const { api } = useApp();
  const events = useData(`monitor-events:${props.monitorId}:${props.round}`, (signal) =>
    listStateEvents(api, props.monitorId, signal),
  );
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">State changes</h2>
      <Loaded data={events} what="state changes">
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No state changes yet.</p>
          ) : (
            <ol class="state-timeline" aria-label="State changes, newest first">
              {list.slice(0, 50).map((e) => (
                <li key={`${e.at}-${e.to}`}>
                  <MonitorStatusBadge status={e.to} />{" "}
                  <span>
                    from {monitorStatusLabel(e.from)} · <Time iso={e.at} />
                    {e.reason ? ` · ${e.reason}` : ""}
                  </span>
                </li>
              ))}
            </ol>
          )
        }
      </Loaded>
    </section>
  );
}

const CHECK_COLUMNS: Column<Check>[] = [
  { label: "Checked", cell: (c) => <Time iso={c.checked_at} /> },
  { label: "Result", cell: (c) => <MonitorStatusBadge status={c.status} /> },
  { label: "Status code", cell: (c) => (c.status_code === null ? "—" : String(c.status_code)) },
  {
    label: "Response",
    cell: (c) => (c.response_time_ms === null ? "—" : `${c.response_time_ms} ms`),
  },
  { label: "Error", cell: (c) => c.error ?? "—" },
];

/** Every stored check, newest first, a page at a time (`?page=` in the URL). */
export function CheckHistory(props: {
  monitorId: string;
  page: number;
  query: Record<string, string>;
  defaults: Record<string, string>;
  round: number;
}) {
  const { api } = useApp();
  const checks = useData(`checks:${props.monitorId}:${props.page}:${props.round}`, (signal) =>
    listChecks(api, props.monitorId, props.page, signal),
  );
  return (
    <section aria-labelledby="checks-title">
      <h2 id="checks-title">Checks</h2>
      <Loaded data={checks} what="checks">
        {(page) =>
          page.data.length === 0 ? (
            <p class="empty">No checks yet.</p>
          ) : (
            <>
              <DataTable
                caption="Checks"
                columns={CHECK_COLUMNS}
                rows={page.data}
                rowKey={(c) => c.id}
              />
              <Pager
                page={props.page}
                pageSize={page.page_size}
                total={page.total}
                href={(n) =>
                  `/monitors/${props.monitorId}${writeQuery({ ...props.query, page: String(n) }, props.defaults)}`
                }
              />
            </>
          )
        }
      </Loaded>
    </section>
  );
}
