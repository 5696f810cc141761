import { useState } from "preact/hooks";
import { Field } from "../kit/field.tsx";
import { formatTimestamp } from "../kit/format.ts";
import { Notice } from "../kit/notice.tsx";
import { PairTable } from "../kit/pair-table.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import type { Endpoint, ForwardRecord, HeaderPair, Page, RequestRow } from "../lib/types.ts";

const LAST_URL = "weir.replay-url";

/** Re-sends the request to a URL now and shows the forward record; lists earlier attempts. */
export function ReplayPanel({ request, endpoint }: { request: RequestRow; endpoint: Endpoint }) {
  const { api, org } = useApp();
  const [url, setUrl] = useState(sessionStorage.getItem(LAST_URL) ?? endpoint.forward_url ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ text: string; fields: Record<string, string[]> } | null>(
    null,
  );
  const [result, setResult] = useState<ForwardRecord | null>(null);
  const [history, setHistory] = useState<ForwardRecord[] | null>(null);
  const base = `/api/v1/endpoints/${endpoint.id}/requests/${request.id}`;

  async function replay(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      sessionStorage.setItem(LAST_URL, url);
      const created = await api.post<{ data: ForwardRecord }>(`${base}/replay`, { url });
      setResult(created.data);
      if (history) setHistory([created.data, ...history]);
    } catch (e) {
      setError({ text: errorText(e), fields: e instanceof ApiError ? e.fields : {} });
    } finally {
      setBusy(false);
    }
  }

  async function loadHistory(event: Event) {
    if (!(event.currentTarget as HTMLDetailsElement).open || history) return;
    try {
      setHistory((await api.get<Page<ForwardRecord>>(`${base}/forwards?page=1&page_size=20`)).data);
    } catch (e) {
      setError({ text: errorText(e), fields: {} });
    }
  }

  return (
    <section aria-labelledby="replay-title" class="replay">
      <h3 id="replay-title">Replay</h3>
      {canWrite(org) ? (
        <form class="form-row two" onSubmit={replay} noValidate>
          <Field
            label="Send this request again to"
            name="replay_url"
            type="url"
            inputMode="url"
            required
            value={url}
            onInput={setUrl}
            errors={error?.fields.url}
            placeholder="http://localhost:3000/webhooks"
          />
          <div class="form-submit">
            <button type="submit" class="button primary" disabled={busy || !url.trim()}>
              {busy ? "Sending…" : "Replay"}
            </button>
          </div>
        </form>
      ) : (
        <p class="muted">Your role cannot replay requests.</p>
      )}
      {error && !error.fields.url ? <Notice kind="error">{error.text}</Notice> : null}
      {result ? <ForwardView record={result} /> : null}
      <details onToggle={loadHistory}>
        <summary>Earlier forwards and replays</summary>
        {history === null ? <p class="muted">Loading…</p> : null}
        {history?.length === 0 ? <p class="muted">None yet.</p> : null}
        {history?.map((record) => (
          <ForwardView record={record} key={record.id} compact />
        ))}
      </details>
    </section>
  );
}

/** One forward record: outcome in words first, then the answer received. */
export function ForwardView({ record, compact }: { record: ForwardRecord; compact?: boolean }) {
  const ok = record.error === null && record.status_code !== null && record.status_code < 400;
  const headers: HeaderPair[] = Array.isArray(record.response_headers)
    ? record.response_headers
    : Object.entries(record.response_headers ?? {});
  return (
    <div class={`forward ${ok ? "forward-ok" : "forward-failed"}`} data-forward-id={record.id}>
      <p class="forward-summary">
        <strong>{ok ? "✔ Delivered" : "✖ Failed"}</strong>
        {" · "}
        <span class="forward-status">
          {record.status_code === null ? "no answer" : `HTTP ${record.status_code}`}
        </span>
        {record.latency_ms === null ? null : ` · ${record.latency_ms} ms`}
        {` · ${record.method} ${record.url}`}
        {compact ? ` · ${formatTimestamp(record.created_at)}` : null}
      </p>
      {record.error ? <p class="error-text">{record.error}</p> : null}
      {compact ? null : (
        <>
          <h4>Response headers</h4>
          <PairTable pairs={headers} label="Response headers" first="Header" />
          <h4>Response body</h4>
          {record.response_body ? (
            <pre class="code">{record.response_body}</pre>
          ) : (
            <p class="muted">Empty.</p>
          )}
        </>
      )}
    </div>
  );
}
