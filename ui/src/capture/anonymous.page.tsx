import { useEffect, useState } from "preact/hooks";
import { MethodBadge } from "../kit/badges.tsx";
import { BodyViewer } from "../kit/body-view.tsx";
import { CopyButton } from "../kit/copy-button.tsx";
import { formatBytes, formatFullDate } from "../kit/format.ts";
import { Link } from "../kit/link.tsx";
import { Notice } from "../kit/notice.tsx";
import { PairTable } from "../kit/pair-table.tsx";
import { Time } from "../kit/time.tsx";
import type { CapturedRequest, Page } from "../lib/types.ts";

/** What creating an anonymous endpoint answers (decisions.md §6); the token is its only key. */
interface Anonymous {
  id: string;
  slug: string;
  webhook_url: string;
  token: string;
  expires_at: string;
}

const KEY = "weir.anonymous-endpoint";
const POLL_MS = 3000;

/** The temporary endpoint this browser made, until it expires. */
function loadAnonymous(): Anonymous | null {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null") as Anonymous | null;
    return saved && Date.parse(saved.expires_at) > Date.now() ? saved : null;
  } catch {
    return null;
  }
}

async function anonymousCall<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(path, init);
  const data = (await response.json().catch(() => null)) as (T & { error?: string }) | null;
  if (!response.ok) throw new Error(data?.error ?? `The server answered ${response.status}.`);
  return data as T;
}

/**
 * "Get a URL now", without an account: a temporary endpoint (7 days, 1,000 requests) whose
 * requests this page lists, re-read every few seconds. The token stays in this browser only.
 */
export function AnonymousPage() {
  const [endpoint, setEndpoint] = useState<Anonymous | null>(loadAnonymous);
  const [requests, setRequests] = useState<CapturedRequest[]>([]);
  const [total, setTotal] = useState(0);
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function create() {
    setBusy(true);
    setError("");
    try {
      const created = await anonymousCall<{ data: Anonymous }>("/api/v1/anonymous-endpoints", {
        method: "POST",
      });
      localStorage.setItem(KEY, JSON.stringify(created.data));
      setRequests([]);
      setEndpoint(created.data);
    } catch (e) {
      const code = e instanceof Error ? e.message : String(e);
      setError(
        code === "not_found"
          ? "Temporary URLs are turned off on this server. Log in to create endpoints."
          : code === "rate_limited"
            ? "Too many temporary URLs from your address. Wait a minute and try again."
            : code,
      );
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    if (!endpoint) return;
    let stopped = false;
    const read = async () => {
      try {
        const page = await anonymousCall<Page<CapturedRequest>>(
          `/api/v1/anonymous-endpoints/${endpoint.id}/requests?page_size=100`,
          { headers: { "x-anonymous-token": endpoint.token } },
        );
        if (stopped) return;
        setRequests(page.data);
        setTotal(page.total);
        setError("");
      } catch (e) {
        if (!stopped) setError(e instanceof Error ? e.message : String(e));
      }
    };
    read();
    const timer = setInterval(read, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [endpoint?.id]);

  const selected = requests.find((r) => r.id === selectedId) ?? requests[0];
  return (
    <main id="main" class="page anonymous-page">
      <h1>A webhook URL, right now</h1>
      <p>
        No account needed: send anything to the URL below and see it here. It lasts 7 days and keeps
        up to 1,000 requests. <Link href="/login">Log in</Link> for permanent endpoints.
      </p>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {endpoint ? (
        <section class="card" aria-labelledby="anon-url-title">
          <h2 id="anon-url-title">Your temporary URL</h2>
          <div class="capture-url">
            <code data-testid="anonymous-url">{endpoint.webhook_url}</code>
            <CopyButton text={endpoint.webhook_url} label="Copy URL" />
          </div>
          <p class="muted small">
            Expires{" "}
            <span title={formatFullDate(endpoint.expires_at)}>
              {formatFullDate(endpoint.expires_at)}
            </span>
            . Try: <code>curl -X POST {endpoint.webhook_url} -d 'hello'</code>
          </p>
          <button type="button" class="button small" disabled={busy} onClick={create}>
            Get a new URL
          </button>
        </section>
      ) : (
        <button type="button" class="button primary" disabled={busy} onClick={create}>
          {busy ? "Creating…" : "Get a URL now"}
        </button>
      )}
      {endpoint ? (
        <div class="inspector-body">
          <section class="list-pane" aria-label="Requests">
            <p class="count muted small" aria-live="polite">
              {total === 0
                ? "Waiting for the first request…"
                : `${total.toLocaleString()} received`}
            </p>
            <div class="request-list" role="listbox" aria-label="Received requests, newest first">
              {requests.map((r) => (
                // biome-ignore lint/a11y/useFocusableInteractive: a short list; each option is reached by click or tab on the list.
                <div
                  key={r.id}
                  role="option"
                  aria-selected={r.id === selected?.id}
                  class={`request-row${r.id === selected?.id ? " selected" : ""}`}
                  data-request-id={r.id}
                  onClick={() => setSelectedId(r.id)}
                  onKeyDown={(e) => e.key === "Enter" && setSelectedId(r.id)}
                >
                  <MethodBadge method={r.method} />
                  <span class="row-path">{r.path || "/"}</span>
                  <span class="row-meta">
                    <Time iso={r.created_at} />
                    <span>{formatBytes(r.size)}</span>
                  </span>
                </div>
              ))}
            </div>
          </section>
          <section class="detail-pane" aria-label="Selected request">
            {selected ? (
              <article class="request-detail" data-request-id={selected.id}>
                <h2 class="detail-title">
                  <MethodBadge method={selected.method} />
                  <span class="detail-path">
                    {selected.path || "/"}
                    {selected.query_string ? `?${selected.query_string}` : ""}
                  </span>
                </h2>
                <h3>Headers</h3>
                <PairTable pairs={selected.raw_headers} label="Headers" first="Header" />
                <h3>Body</h3>
                <BodyViewer request={selected} key={selected.id} />
              </article>
            ) : (
              <p class="muted">Requests sent to the URL appear here.</p>
            )}
          </section>
        </div>
      ) : null}
    </main>
  );
}
