import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { StatusBadge } from "../kit/badges.tsx";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { CopyButton } from "../kit/copy-button.tsx";
import { Link } from "../kit/link.tsx";
import { moveSelection } from "../kit/list-keys.ts";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { LIVE_LABEL } from "../lib/live.ts";
import { PLAN_LABEL } from "../lib/plans.ts";
import type { Endpoint } from "../lib/types.ts";
import { useData } from "../lib/use-load.ts";
import { patchEndpoint } from "./endpoints.api.ts";
import { ExportMenu } from "./export-menu.tsx";
import { RequestDetail } from "./request-detail.tsx";
import {
  filterFromSearch,
  filterParams,
  filterRequests,
  inspectorUrl,
  methodsOf,
  type RequestFilter,
} from "./request-filter.ts";
import { FilterBar } from "./request-filter-bar.tsx";
import { RequestList } from "./request-list.tsx";
import { mergeRequests } from "./requests.ts";
import { useRequestFeed } from "./use-request-feed.ts";
import { useRequestSearch } from "./use-request-search.ts";

const TYPING = /^(INPUT|TEXTAREA|SELECT)$/;

/** One endpoint's requests, live: list with filters on the left, the selected request on the right. */
export function InspectorPage({ endpointId }: { endpointId: string }) {
  const { api, org, notify } = useApp();
  const endpoint = useData(`endpoint:${endpointId}`, (signal) =>
    api.get<{ data: Endpoint }>(`/api/v1/endpoints/${endpointId}`, signal).then((r) => r.data),
  );
  const feed = useRequestFeed(endpointId);
  // The filter lives in the URL (reload and a pasted link show the same list); typing is kept
  // here and written to the address once it settles.
  const [filter, setFilter] = useState<RequestFilter>(() => filterFromSearch(location.search));
  const search = useRequestSearch(endpointId, filter);
  const [selectedId, setSelectedId] = useState<string | undefined>(
    new URLSearchParams(location.search).get("request") ?? undefined,
  );
  const [confirmClear, setConfirmClear] = useState(false);
  const [error, setError] = useState("");
  const urlTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Filtered: the server's matches over the whole history, plus live arrivals that match.
  const visible = useMemo(() => {
    if (!search.active) return feed.rows;
    const arrived = feed.rows.filter((r) => feed.liveIds.has(r.id));
    return mergeRequests(search.rows, filterRequests(arrived, filter));
  }, [feed.rows, search.rows, search.active, filter]);
  const methods = useMemo(() => methodsOf(feed.rows), [feed.rows]);
  const selected =
    feed.rows.find((r) => r.id === selectedId) ?? search.rows.find((r) => r.id === selectedId);
  // A body cut in the list (or by the socket) is read whole once the request is looked at.
  const incomplete = selected?.body_truncated ? selected.id : undefined;
  useEffect(() => {
    if (incomplete) void feed.complete(incomplete);
  }, [incomplete]);

  function select(id: string | undefined) {
    setSelectedId(id);
    // Seen at once by the key handler: a second press before the re-render moves on from here.
    latest.current.selectedId = id;
    // The address follows the selection (a link to one request) once j/k settle: browsers make
    // history.replaceState slow when it runs on every key press.
    clearTimeout(urlTimer.current);
    urlTimer.current = setTimeout(() => writeUrl(latest.current.filter, id), 300);
  }

  function writeUrl(next: RequestFilter, id: string | undefined) {
    const path = `/endpoints/${endpointId}`;
    if (location.pathname === path) history.replaceState(null, "", inspectorUrl(path, next, id));
  }

  const filterTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  function changeFilter(next: RequestFilter) {
    setFilter(next);
    latest.current.filter = next;
    clearTimeout(filterTimer.current);
    filterTimer.current = setTimeout(() => writeUrl(next, latest.current.selectedId), 300);
  }

  // One listener for the page's life, reading the latest state: re-adding it after every render
  // would leave a stale one in place until effects run, and a fast second key press would be lost.
  const latest = useRef({ visible, selectedId, select, filter });
  latest.current = { visible, selectedId, select, filter };
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (
        event.ctrlKey ||
        event.metaKey ||
        event.altKey ||
        TYPING.test(target.tagName) ||
        document.querySelector("dialog[open]")
      )
        return;
      if (event.key === "/") {
        event.preventDefault();
        document.getElementById("request-filter-text")?.focus();
      } else if (event.key === "j" || event.key === "k") {
        const now = latest.current;
        const next = moveSelection(
          now.visible.map((r) => r.id),
          now.selectedId,
          event.key,
        );
        if (next) now.select(next);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  if (endpoint.state === "loading")
    return (
      <main id="main" class="page">
        <p class="muted">Loading endpoint…</p>
      </main>
    );
  if (endpoint.state === "failed") {
    return (
      <main id="main" class="page">
        <Notice kind="error">
          {endpoint.error?.status === 404
            ? "This endpoint does not exist, or it was deleted."
            : endpoint.error?.message}
        </Notice>
        <Link href="/endpoints">Back to endpoints</Link>
      </main>
    );
  }
  // Past the two checks above, the endpoint is loaded.
  const ep = endpoint.data as Endpoint;

  async function toggle() {
    try {
      const status = ep.status === "active" ? "paused" : "active";
      endpoint.set(await patchEndpoint(api, ep, { status }));
      notify(status === "paused" ? "Endpoint paused: its URL answers 404." : "Endpoint resumed.");
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function clearAll() {
    try {
      await api.delete(`/api/v1/endpoints/${ep.id}/requests`);
      feed.clear();
      select(undefined);
      notify("All requests deleted.");
    } catch (e) {
      setError(errorText(e));
    }
  }

  const liveText =
    feed.live.state === "unavailable"
      ? feed.live.reason === "feature_not_available"
        ? `Live updates are not on the ${PLAN_LABEL[org.plan]} plan: checking every 5 s`
        : "Live updates unavailable: checking every 5 s"
      : LIVE_LABEL[feed.live.state];

  return (
    <main id="main" class={`page inspector${selected ? " has-selection" : ""}`}>
      <div class="inspector-head">
        <div>
          <p class="crumbs">
            <Link href="/endpoints">Endpoints</Link> /
          </p>
          <h1>
            {ep.name} <StatusBadge status={ep.status} />
          </h1>
          <div class="capture-url">
            <span class="label">Capture URL</span>
            <code>{ep.webhook_url}</code>
            <CopyButton text={ep.webhook_url} label="Copy URL" />
          </div>
        </div>
        <div class="inspector-tools">
          <p class={`live live-${feed.live.state}`} role="status" data-live-state={feed.live.state}>
            <span aria-hidden="true" class="live-dot" />
            {liveText}
          </p>
          {canWrite(org) ? (
            <div class="actions">
              <button type="button" class="button small" onClick={toggle}>
                {ep.status === "active" ? "Pause" : "Resume"}
              </button>
              <Link class="button small" href={`/endpoints/${ep.id}/settings`}>
                Settings
              </Link>
              <button
                type="button"
                class="button small danger"
                onClick={() => setConfirmClear(true)}
                disabled={feed.total === 0}
              >
                Delete all requests
              </button>
            </div>
          ) : null}
        </div>
      </div>
      {ep.status === "paused" ? (
        <Notice kind="warning">
          Paused: the capture URL answers 404 and stores nothing until you resume.
        </Notice>
      ) : null}
      {error || feed.error ? <Notice kind="error">{error || feed.error}</Notice> : null}
      <div class="inspector-body">
        <section class="list-pane" aria-label="Requests">
          <FilterBar
            filter={filter}
            methods={methods}
            onChange={changeFilter}
            count={
              !search.active
                ? `${feed.rows.length.toLocaleString()} of ${feed.total.toLocaleString()}`
                : search.searching
                  ? "Searching…"
                  : `${visible.length.toLocaleString()} shown of ${Math.max(search.total, visible.length).toLocaleString()} matching`
            }
          />
          {search.error ? <Notice kind="error">{search.error}</Notice> : null}
          <ExportMenu
            endpoint={ep}
            query={search.active ? filterParams(filter).toString() : ""}
            count={search.active ? search.total : feed.total}
          />
          {feed.loading ? <p class="muted">Loading requests…</p> : null}
          {!feed.loading && feed.rows.length === 0 ? (
            <div class="empty">
              <p>No requests yet. Send one:</p>
              <pre class="code">
                curl -X POST {ep.webhook_url} -H 'content-type: application/json' -d '{"{"}
                "hello":"weir"{"}"}'
              </pre>
            </div>
          ) : null}
          <RequestList
            rows={visible}
            selectedId={selectedId}
            onSelect={select}
            fresh={feed.liveIds}
          />
          {search.active && search.rows.length < search.total ? (
            <button type="button" class="button small wide" onClick={search.loadMore}>
              Load more matches ({(search.total - search.rows.length).toLocaleString()} more)
            </button>
          ) : null}
          {!search.active && feed.rows.length < feed.total ? (
            <button type="button" class="button small wide" onClick={feed.loadOlder}>
              Load older requests ({(feed.total - feed.rows.length).toLocaleString()} more)
            </button>
          ) : null}
          <p class="muted small keys-hint">Keys: j/k or ↑/↓ move, / filters.</p>
        </section>
        <section class="detail-pane" aria-label="Selected request">
          {selected ? (
            <RequestDetail
              request={selected}
              endpoint={ep}
              onBack={() => select(undefined)}
              actionRun={feed.actionRuns[selected.id]}
            />
          ) : (
            <p class="muted">Select a request to see its headers, body and actions.</p>
          )}
        </section>
      </div>
      {confirmClear ? (
        <ConfirmDialog
          title="Delete all requests?"
          confirmLabel="Delete all"
          onConfirm={clearAll}
          onClose={() => setConfirmClear(false)}
        >
          <p>
            All {feed.total.toLocaleString()} stored requests of “{ep.name}” are deleted. The
            endpoint and its URL stay. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </main>
  );
}
