import { useEffect, useState } from "preact/hooks";
import { BodyViewer } from "../kit/body-view.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded, NotFound } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { PairTable } from "../kit/pair-table.tsx";
import { Time, useNow } from "../kit/time.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { useQueryState } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { DeliveryTimeline } from "./delivery-timeline.tsx";
import { EventStatusBadge } from "./event-status.tsx";
import {
  type EventDetail,
  getEventDetail,
  listAttempts,
  listBridgeRefs,
  listSourceRefs,
  type RetriedEvent,
  retryEvent,
} from "./events.api.ts";

const POLL_MS = 5_000;

/** One event: the request as received, and per destination what was sent and every attempt. */
export function EventPage({ eventId }: { eventId: string }) {
  const { api, org, notify } = useApp();
  const now = useNow();
  const event = useData(`event:${eventId}`, async (signal) => {
    const [detail, attempts, sources, bridges] = await Promise.all([
      getEventDetail(api, eventId, signal),
      listAttempts(api, eventId, signal),
      listSourceRefs(api, signal),
      listBridgeRefs(api, signal),
    ]);
    return { detail, attempts, sources, bridges };
  });
  const [{ attempt: selectedAttempt }] = useQueryState({ attempt: "" });
  const [busy, setBusy] = useState(false);
  const [retryError, setRetryError] = useState("");
  const detail = event.data?.detail;
  // While something is still on its way, the page reads the event again, as the list does.
  const inFlight =
    detail?.status === "pending" ||
    detail?.deliveries.some((d) => ["pending", "delivering", "retrying"].includes(d.status)) ===
      true;
  useEffect(() => {
    if (!inFlight) return;
    const timer = setInterval(event.refetch, POLL_MS);
    return () => clearInterval(timer);
  }, [inFlight, event.refetch]);

  if (event.state === "failed" && event.error?.status === 404)
    return <NotFound what="Event" listHref="/events" listLabel="Back to events" />;

  async function retry() {
    setBusy(true);
    setRetryError("");
    try {
      notify(retrySummary(await retryEvent(api, eventId)));
      event.refetch();
    } catch (error) {
      setRetryError(errorText(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="page">
      <p class="crumbs">
        <Link href="/events">Events</Link> /
      </p>
      <Loaded data={event} what="the event">
        {({ detail, attempts, sources, bridges }) => {
          const destinations = bridges.flatMap((b) => b.destinations);
          const source = sources.find((s) => s.id === detail.source_id);
          const waiting = detail.deliveries.some((d) => d.status === "retrying");
          const retryable =
            detail.status === "failed" ||
            ["paused", "filtered", "unrouted"].includes(detail.status) ||
            detail.deliveries.some((d) => d.status === "failed");
          return (
            <>
              <div class="page-head">
                <h1>
                  Event <span class="mono">{detail.request.method}</span>{" "}
                  <span class="mono">{detail.request.path || "/"}</span>
                </h1>
                <EventStatusBadge status={detail.status} />
              </div>
              <dl class="meta">
                <div>
                  <dt>Received</dt>
                  <dd>
                    <Time iso={detail.created_at} now={now} />
                  </dd>
                </div>
                <div>
                  <dt>Source</dt>
                  <dd>
                    {source ? (
                      <Link href={`/sources/${source.id}`}>{source.name}</Link>
                    ) : (
                      detail.source_id
                    )}
                  </dd>
                </div>
                <div>
                  <dt>Bridges</dt>
                  <dd>
                    {detail.bridge_ids.length === 0
                      ? "none"
                      : detail.bridge_ids.map((id, i) => (
                          <span key={id}>
                            {i > 0 ? ", " : ""}
                            <Link href={`/bridges/${id}`}>
                              {bridges.find((b) => b.id === id)?.name ?? id}
                            </Link>
                          </span>
                        ))}
                  </dd>
                </div>
                <div>
                  <dt>Event id</dt>
                  <dd class="mono">{detail.id}</dd>
                </div>
              </dl>
              {canWrite(org) && (retryable || waiting) ? (
                <div class="actions">
                  {retryable ? (
                    <button type="button" class="button primary" disabled={busy} onClick={retry}>
                      {busy ? "Retrying…" : "Retry"}
                    </button>
                  ) : null}
                  {waiting ? (
                    <button type="button" class="button" disabled={busy} onClick={retry}>
                      {busy ? "Sending…" : "Retry now"}
                    </button>
                  ) : null}
                </div>
              ) : null}
              {retryError ? <Notice kind="error">{retryError}</Notice> : null}
              <FilteredBy detail={detail} names={destinations} />
              <section aria-labelledby="received-title" class="card">
                <h2 id="received-title">Request as received</h2>
                {detail.request.query_string ? (
                  <p class="mono small">?{detail.request.query_string}</p>
                ) : null}
                <h3>Headers</h3>
                <PairTable
                  pairs={Object.entries(detail.request.headers)}
                  label="Headers received"
                  first="Header"
                />
                <h3>Body</h3>
                <BodyViewer
                  request={{
                    body: detail.request.body,
                    body_encoding: detail.request.body_encoding,
                    content_type: detail.request.headers["content-type"] ?? null,
                    size: detail.request.body.length,
                  }}
                />
              </section>
              <h2>Deliveries</h2>
              {detail.deliveries.length === 0 ? (
                <p class="empty">Nothing was sent for this event.</p>
              ) : (
                detail.deliveries.map((d) => {
                  const destination = destinations.find((x) => x.id === d.destination_id);
                  return (
                    <DeliveryTimeline
                      key={d.id}
                      delivery={d}
                      name={
                        destination ? `${destination.name} (${destination.type})` : d.destination_id
                      }
                      attempts={attempts.filter((a) => a.delivery_id === d.id)}
                      now={now}
                      selectedAttempt={selectedAttempt}
                    />
                  );
                })
              )}
            </>
          );
        }}
      </Loaded>
    </main>
  );
}

function FilteredBy(props: { detail: EventDetail; names: { id: string; name: string }[] }) {
  if (props.detail.filtered_by.length === 0) return null;
  return (
    <Notice kind="info">
      <p>No destination's filters matched, so nothing was sent:</p>
      <ul>
        {props.detail.filtered_by.map((f) => (
          <li key={f.destination_id}>
            {props.names.find((n) => n.id === f.destination_id)?.name ?? f.destination_id}: filter{" "}
            {f.filter + 1} failed at <code>{f.path}</code>
          </li>
        ))}
      </ul>
    </Notice>
  );
}

/** What a retry did, in one sentence. */
function retrySummary(result: RetriedEvent): string {
  const count = (action: string) => result.deliveries.filter((d) => d.action === action).length;
  const parts = [
    count("requeued") ? `${count("requeued")} queued again` : "",
    count("pulled_forward") ? `${count("pulled_forward")} sent now` : "",
    count("created") ? `${count("created")} routed again` : "",
  ].filter(Boolean);
  return parts.length ? `Retry: ${parts.join(", ")}` : "Nothing to retry";
}
