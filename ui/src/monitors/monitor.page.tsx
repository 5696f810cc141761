import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { CopyButton } from "../kit/copy-button.tsx";
import { Link } from "../kit/link.tsx";
import { ErrorView, NotFound } from "../kit/loaded.tsx";
import { Time } from "../kit/time.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { navigate, useQueryState } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { MonitorFamily } from "./monitor-family.tsx";
import { MonitorForm } from "./monitor-form.tsx";
import { CheckHistory, RANGES, ResponseChart, StateTimeline } from "./monitor-history.tsx";
import { MonitorStatusBadge, uptimeText } from "./monitor-status.tsx";
import {
  checkMonitorNow,
  deleteMonitor,
  getMonitor,
  type Monitor,
  type Range,
  updateMonitor,
} from "./monitors.api.ts";
import { MONITOR_TYPES } from "./types/index.ts";

const DEFAULTS = { range: "24h", page: "1" };

/** One monitor: its figures, chart, state changes and checks, and what an admin can do. */
export function MonitorPage({ monitorId }: { monitorId: string }) {
  const { api, org, notify } = useApp();
  const [query, setQuery] = useQueryState(DEFAULTS);
  const monitor = useData(`monitor:${monitorId}`, (signal) => getMonitor(api, monitorId, signal));
  const [round, setRound] = useState(0);
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState("");
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const writer = canWrite(org);
  const range = (RANGES.some((r) => r.value === query.range) ? query.range : "24h") as Range;
  const page = Math.max(1, Number(query.page) || 1);

  if (monitor.error?.status === 404)
    return <NotFound what="Monitor" listHref="/monitors" listLabel="Back to monitors" />;
  if (!monitor.data)
    return (
      <main id="main" class="page">
        {monitor.error ? (
          <ErrorView error={monitor.error} onRetry={monitor.refetch} />
        ) : (
          <p class="muted" aria-busy="true">
            Loading monitor…
          </p>
        )}
      </main>
    );
  const m = monitor.data;
  const fail = (e: unknown) =>
    setActionError(e instanceof ApiError ? e : new ApiError(0, errorText(e)));

  // Optimistic: the new state shows at once and the old one comes back if refused.
  async function togglePause(current: Monitor) {
    const paused = !current.paused;
    monitor.set({ ...current, paused, status: paused ? "paused" : current.status });
    setActionError(null);
    try {
      const saved = await updateMonitor(api, current.id, { paused });
      monitor.set(saved);
      notify(`Monitor “${saved.name}” ${paused ? "paused" : "resumed"}`);
    } catch (e) {
      monitor.set(current);
      fail(e);
    }
  }

  async function checkNow() {
    setBusy("check");
    setActionError(null);
    try {
      const check = await checkMonitorNow(api, m.id);
      notify(
        `Checked: ${check.status}${check.response_time_ms === null ? "" : ` in ${check.response_time_ms} ms`}`,
      );
      monitor.refetch();
      setRound((n) => n + 1);
    } catch (e) {
      fail(e);
    } finally {
      setBusy("");
    }
  }

  const typeLabel = MONITOR_TYPES[m.type as keyof typeof MONITOR_TYPES]?.label ?? m.type;
  const target = m.url ?? m.hostname ?? "";
  return (
    <main id="main" class="page">
      <p class="crumbs">
        <Link href="/monitors">Monitors</Link> /
      </p>
      <div class="page-head">
        <h1>{m.name}</h1>
        <MonitorStatusBadge status={m.status} />
      </div>
      <p class="muted monitor-meta">
        {typeLabel}
        {target ? ` · ${target}` : ""} · every {m.interval_seconds} s · last checked{" "}
        <Time iso={m.last_checked_at} />
      </p>
      {writer ? (
        <div class="actions">
          <button type="button" class="button" onClick={() => togglePause(m)}>
            {m.paused ? "Resume" : "Pause"}
          </button>
          {m.type === "push" ? null : (
            <button type="button" class="button" disabled={busy === "check"} onClick={checkNow}>
              {busy === "check" ? "Checking…" : "Check now"}
            </button>
          )}
          <button
            type="button"
            class="button"
            aria-expanded={editing}
            onClick={() => setEditing(!editing)}
          >
            Edit
          </button>
          <button type="button" class="button danger" onClick={() => setDeleting(true)}>
            Delete monitor
          </button>
        </div>
      ) : null}
      {actionError ? <ErrorView error={actionError} /> : null}
      {editing ? (
        <MonitorForm
          monitor={m}
          key={m.updated_at}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            monitor.set(saved);
            setEditing(false);
          }}
        />
      ) : null}
      {m.push_url ? <PushHelp url={m.push_url} /> : null}
      <MonitorFamily monitor={m} key={m.updated_at} />
      <dl class="figures">
        <Figure term="Uptime 24 h" value={uptimeText(m.uptime_24h)} />
        <Figure term="Uptime 7 days" value={uptimeText(m.uptime_7d)} />
        <Figure term="Uptime 30 days" value={uptimeText(m.uptime_30d)} />
        <Figure
          term="Average response, 24 h"
          value={m.avg_response_ms === null ? "—" : `${m.avg_response_ms} ms`}
        />
        <Figure
          term="95th percentile, 24 h"
          value={m.p95_response_ms === null ? "—" : `≤ ${m.p95_response_ms} ms`}
        />
      </dl>
      <ResponseChart
        monitorId={m.id}
        range={range}
        round={round}
        onRange={(next) => setQuery({ range: next })}
      />
      <StateTimeline monitorId={m.id} round={round} />
      <CheckHistory monitorId={m.id} page={page} query={query} defaults={DEFAULTS} round={round} />
      {deleting ? (
        <ConfirmDialog
          title={`Delete monitor “${m.name}”?`}
          confirmLabel="Delete monitor"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            try {
              await deleteMonitor(api, m.id);
              notify(`Monitor “${m.name}” deleted`);
              navigate("/monitors");
            } catch (e) {
              fail(e);
            }
          }}
        >
          <p>Its checks and uptime history go with it.</p>
        </ConfirmDialog>
      ) : null}
    </main>
  );
}

function Figure(props: { term: string; value: string }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd>{props.value}</dd>
    </div>
  );
}

/** Where a push monitor's sender calls, with a copy button and a curl line to start from. */
function PushHelp(props: { url: string }) {
  const curl = `curl -fsS "${props.url}"`;
  return (
    <section class="card" aria-labelledby="push-title">
      <h2 id="push-title">Push URL</h2>
      <p>
        <code class="wrap">{props.url}</code> <CopyButton text={props.url} label="Copy push URL" />
      </p>
      <p>
        Call it from the job when it succeeds; add <code>?status=down&amp;msg=…</code> to report a
        failure.
      </p>
      <pre class="code">{curl}</pre>
      <CopyButton text={curl} label="Copy curl command" />
    </section>
  );
}
