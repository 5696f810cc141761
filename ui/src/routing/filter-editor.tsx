import { useEffect, useRef, useState } from "preact/hooks";
import { Field } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Notice } from "../kit/notice.tsx";
import { Time } from "../kit/time.tsx";
import { useDebounced } from "../kit/use-debounced.ts";
import { type Api, ApiError, errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { filterErrors, parseFilters } from "./filters.ts";
import { type FilterCheck, testFilters } from "./routing.api.ts";

/** How long typing must pause before the draft is checked by the server. */
export const FILTER_CHECK_DELAY_MS = 300;
const RECENT_EVENTS = 5;

type Verdict = { kind: "empty" } | { kind: "valid" } | { kind: "invalid"; messages: string[] };

/** The server's word on a draft: valid, or its 422 messages (a JSON slip is caught here). */
async function verdictOf(api: Api, text: string, signal: AbortSignal): Promise<Verdict> {
  const parsed = parseFilters(text);
  if ("error" in parsed) return { kind: "invalid", messages: [parsed.error] };
  if (parsed.filters.length === 0) return { kind: "empty" };
  try {
    await testFilters(api, { filters: parsed.filters }, signal);
    return { kind: "valid" };
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) {
      const messages = filterErrors(error.fields);
      return { kind: "invalid", messages: messages.length ? messages : [error.message] };
    }
    throw error;
  }
}

/**
 * The destination form's filter editor: checked by the server as you type (the same 422 a save
 * gives, at the field), and tried on the source's latest events on request.
 */
export function FilterEditor(props: {
  value: string;
  onInput: (value: string) => void;
  /** What the last save said about the filters. */
  submitErrors?: string[];
  /** The bridge's source: its latest events are what the filter is tried on. */
  sourceId?: string;
}) {
  const { api } = useApp();
  const settled = useDebounced(props.value, FILTER_CHECK_DELAY_MS);
  const live = useData(`filters:${settled}`, (signal) => verdictOf(api, settled, signal));
  const typing = settled !== props.value || live.state === "loading";
  const verdict = typing ? undefined : live.data;
  const liveErrors = verdict?.kind === "invalid" ? verdict.messages : undefined;
  const errors = props.submitErrors?.length ? props.submitErrors : liveErrors;
  return (
    <div class="filter-editor">
      <Field
        label="Filters (JSON)"
        name="filters"
        multiline
        value={props.value}
        placeholder='[{"body.type": "invoice.paid"}]'
        hint="An array of filter objects; all must match. Empty sends every event. Checked as you type."
        errors={errors}
        onInput={props.onInput}
      />
      <p class="filter-state muted" aria-live="polite">
        {typing
          ? "Checking…"
          : live.state === "failed"
            ? `Could not check the filter: ${live.error?.message ?? ""}`
            : verdict?.kind === "valid"
              ? "✔ Filter is valid"
              : verdict?.kind === "empty"
                ? "No filter: every event is sent."
                : ""}
      </p>
      {props.sourceId ? (
        <RecentEventsTrial
          key={props.value}
          text={props.value}
          sourceId={props.sourceId}
          usable={verdict?.kind === "valid" || verdict?.kind === "empty"}
        />
      ) : null}
    </div>
  );
}

/** Tries the draft on the source's latest events; keyed by the draft, so an edit clears it. */
function RecentEventsTrial(props: { text: string; sourceId: string; usable: boolean }) {
  const { api } = useApp();
  const [results, setResults] = useState<FilterCheck["results"] | null>(null);
  const [failed, setFailed] = useState("");
  const [busy, setBusy] = useState(false);
  const inFlight = useRef<AbortController | null>(null);
  // An edit remounts this trial: the answer for the old draft is no longer wanted.
  useEffect(() => () => inFlight.current?.abort(), []);
  async function run() {
    const parsed = parseFilters(props.text);
    if ("error" in parsed) return;
    inFlight.current?.abort();
    const controller = new AbortController();
    inFlight.current = controller;
    setBusy(true);
    setFailed("");
    try {
      const body = { filters: parsed.filters, source_id: props.sourceId, limit: RECENT_EVENTS };
      const answer = await testFilters(api, body, controller.signal);
      setResults(answer.results);
    } catch (error) {
      if (!controller.signal.aborted) setFailed(errorText(error));
    } finally {
      if (!controller.signal.aborted) setBusy(false);
    }
  }
  return (
    <div class="filter-trial">
      <button type="button" class="button" disabled={busy || !props.usable} onClick={run}>
        {busy ? "Testing…" : "Test against recent events"}
      </button>
      {failed ? <Notice kind="error">{failed}</Notice> : null}
      {results ? <TrialResults results={results} /> : null}
    </div>
  );
}

function TrialResults(props: { results: FilterCheck["results"] }) {
  if (props.results.length === 0) {
    return <p aria-live="polite">This source has no events yet to try the filter on.</p>;
  }
  const passed = props.results.filter((r) => r.matched).length;
  return (
    <section aria-label="Filter test results" aria-live="polite">
      <p>
        {passed} of {props.results.length} recent events would pass.
      </p>
      <ul class="filter-results">
        {props.results.map((r) => (
          <li key={r.event_id}>
            <span class={r.matched ? "verdict-pass" : "verdict-fail"}>
              {r.matched ? "✔ Passes" : "✖ Fails"}
            </span>{" "}
            {r.failed ? (
              <>
                at <code>{`filters[${r.failed.filter}] ${r.failed.path}`}</code>{" "}
              </>
            ) : r.over_budget ? (
              "(over the filter budget) "
            ) : null}
            · <Link href={`/events/${r.event_id}`}>Event {r.event_id.slice(-8)}</Link> ·{" "}
            <Time iso={r.created_at} />
          </li>
        ))}
      </ul>
    </section>
  );
}
