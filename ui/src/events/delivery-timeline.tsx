import { useEffect } from "preact/hooks";
import { BodyViewer } from "../kit/body-view.tsx";
import { Link } from "../kit/link.tsx";
import { PairTable } from "../kit/pair-table.tsx";
import { Time } from "../kit/time.tsx";
import { DeliveryStatusBadge } from "./event-status.tsx";
import type { Attempt, Delivery } from "./events.api.ts";

/** The longest answer shown in the timeline; the whole one is in the API. */
const EXCERPT = 300;

/** One destination of an event: the request Weir sent, then every attempt, oldest first. */
export function DeliveryTimeline(props: {
  delivery: Delivery;
  name: string;
  attempts: Attempt[];
  now: number;
  /** The attempt the URL points at (`?attempt=<id>`): marked and scrolled to. */
  selectedAttempt: string;
}) {
  const { delivery: d } = props;
  const selected = props.attempts.some((a) => a.id === props.selectedAttempt);
  useEffect(() => {
    if (selected) document.getElementById(`attempt-${props.selectedAttempt}`)?.scrollIntoView();
  }, [selected, props.selectedAttempt]);
  return (
    <section class="card delivery" aria-label={`Delivery to ${props.name}`}>
      <div class="page-head">
        <h3>{props.name}</h3>
        <DeliveryStatusBadge status={d.status} />
      </div>
      <p class="muted small">
        {d.attempts} {d.attempts === 1 ? "attempt" : "attempts"}
        {d.next_attempt_at && d.status === "retrying" ? (
          <>
            {" "}
            · next attempt <Time iso={d.next_attempt_at} now={props.now} />
          </>
        ) : null}
      </p>
      {d.sent ? (
        <details>
          <summary>
            Request sent: <span class="mono">{d.sent.method}</span>{" "}
            <span class="mono wrap">{d.sent.url}</span>
          </summary>
          <PairTable pairs={Object.entries(d.sent.headers)} label="Headers sent" first="Header" />
          <BodyViewer
            request={{
              body: d.sent.body,
              body_encoding: d.sent.body_encoding,
              content_type:
                Object.entries(d.sent.headers).find(
                  ([k]) => k.toLowerCase() === "content-type",
                )?.[1] ?? null,
              size: d.sent.body_size,
              body_truncated: d.sent.body_truncated,
            }}
          />
        </details>
      ) : (
        <p class="muted">Nothing sent yet.</p>
      )}
      {props.attempts.length > 0 ? (
        <ol class="timeline" aria-label={`Attempts to ${props.name}`}>
          {props.attempts.map((a) => (
            <li
              key={a.id}
              id={`attempt-${a.id}`}
              class={`attempt${a.error_type ? " failed" : ""}${a.id === props.selectedAttempt ? " selected" : ""}`}
            >
              <p>
                <Link
                  href={`?attempt=${a.id}`}
                  aria-current={a.id === props.selectedAttempt ? "true" : undefined}
                >
                  <strong>Attempt {a.attempt_number}</strong>
                </Link>{" "}
                · <Time iso={a.created_at} now={props.now} /> ·{" "}
                {a.status_code === null ? "no answer" : `HTTP ${a.status_code}`}
                {a.latency_ms === null ? "" : ` · ${a.latency_ms} ms`}
                {a.error_type ? (
                  <>
                    {" "}
                    · <span class="error-inline">✖ {a.error_type}</span>
                  </>
                ) : (
                  " · ✔ ok"
                )}
              </p>
              {a.error_message ? <p class="small">{a.error_message}</p> : null}
              {a.response_body ? (
                <pre class="code small">
                  {a.response_body.length > EXCERPT
                    ? `${a.response_body.slice(0, EXCERPT)}…`
                    : a.response_body}
                </pre>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
