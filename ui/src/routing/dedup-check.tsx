import { useState } from "preact/hooks";
import { Field, Select } from "../kit/field.tsx";
import { useDebounced } from "../kit/use-debounced.ts";
import { type Api, ApiError } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { bodyText, checkErrors } from "./dedup.ts";
import {
  type DedupCheck as Answer,
  type CheckedRequest,
  checkDuplicates,
  type RecentEvent,
  recentEvents,
} from "./routing.api.ts";
import { headersFromLines, headersToLines } from "./types/http.tsx";

const CHECK_DELAY_MS = 300;

interface Draft {
  headers: string;
  body: string;
}
const BLANK_A: Draft = { headers: "", body: '{"id": "evt_1", "attempt": 1}' };
const BLANK_B: Draft = { headers: "", body: '{"id": "evt_1", "attempt": 2}' };

type Verdict =
  | { kind: "off" }
  | { kind: "answer"; answer: Answer }
  | { kind: "invalid"; messages: string[] };

const asRequest = (d: Draft): CheckedRequest => ({
  headers: headersFromLines(d.headers),
  body: d.body,
});

async function verdictOf(
  api: Api,
  sourceId: string,
  question: string,
  signal: AbortSignal,
): Promise<Verdict> {
  const { a, b, settings } = JSON.parse(question) as { a: Draft; b: Draft; settings: unknown };
  if (settings === null) return { kind: "off" };
  try {
    const body = { a: asRequest(a), b: asRequest(b), settings };
    return { kind: "answer", answer: await checkDuplicates(api, sourceId, body, signal) };
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) {
      return { kind: "invalid", messages: checkErrors(error.fields) };
    }
    throw error;
  }
}

/**
 * "Would these two be duplicates?" under the settings being edited (saved or not): the key each
 * request yields, asked of the server once typing pauses, so it is the ingest's own answer.
 */
export function DedupCheck(props: { sourceId: string; settings: unknown }) {
  const { api } = useApp();
  const [a, setA] = useState<Draft>(BLANK_A);
  const [b, setB] = useState<Draft>(BLANK_B);
  const question = JSON.stringify({ a, b, settings: props.settings });
  const settled = useDebounced(question, CHECK_DELAY_MS);
  const check = useData(`dedup:${props.sourceId}:${settled}`, (signal) =>
    verdictOf(api, props.sourceId, settled, signal),
  );
  const recent = useData(`recent:${props.sourceId}`, (signal) =>
    recentEvents(api, props.sourceId, signal),
  );
  const pending = settled !== question || check.state === "loading";
  return (
    <section class="card" aria-labelledby="dedup-check-title">
      <h2 id="dedup-check-title">Would these two be duplicates?</h2>
      <p class="hint">Checked against the settings above as you edit them, saved or not.</p>
      <div class="dedup-pair">
        <RequestEditor label="A" draft={a} onChange={setA} events={recent.data ?? []} />
        <RequestEditor label="B" draft={b} onChange={setB} events={recent.data ?? []} />
      </div>
      <div aria-live="polite" class="dedup-answer">
        {pending ? (
          <p class="muted">Checking…</p>
        ) : check.state === "failed" ? (
          <p class="error-text">Could not check: {check.error?.message}</p>
        ) : check.data ? (
          <VerdictView verdict={check.data} />
        ) : null}
      </div>
    </section>
  );
}

function VerdictView(props: { verdict: Verdict }) {
  const v = props.verdict;
  if (v.kind === "off") return <p>Deduplication is off: both requests would be kept.</p>;
  if (v.kind === "invalid") {
    return (
      <div>
        <p class="error-text">Fix the settings to check:</p>
        <ul>
          {v.messages.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      </div>
    );
  }
  const { answer } = v;
  return (
    <div>
      {answer.duplicate ? (
        <p class="verdict-fail">
          ✖ Duplicates: B would be dropped if it came within {answer.window_seconds} s of A.
        </p>
      ) : (
        <p class="verdict-pass">✔ Not duplicates: both would be kept.</p>
      )}
      <ul class="dedup-keys">
        <li>
          Key of A: <code>{answer.key_a}</code>
        </li>
        <li>
          Key of B: <code>{answer.key_b}</code>
        </li>
      </ul>
    </div>
  );
}

function RequestEditor(props: {
  label: "A" | "B";
  draft: Draft;
  onChange: (draft: Draft) => void;
  events: RecentEvent[];
}) {
  const [picked, setPicked] = useState("");
  return (
    <fieldset>
      <legend>Request {props.label}</legend>
      {props.events.length > 0 ? (
        <Select
          label={`Fill request ${props.label} from`}
          name={`event_${props.label}`}
          value={picked}
          options={[
            { value: "", label: "A request typed here" },
            ...props.events.map((e) => ({
              value: e.id,
              label: `Event ${e.id.slice(-8)} · ${new Date(e.created_at).toLocaleString()}`,
            })),
          ]}
          onChange={(id) => {
            setPicked(id);
            const event = props.events.find((e) => e.id === id);
            if (event) {
              props.onChange({
                headers: headersToLines(event.request.headers),
                body: bodyText(event.request),
              });
            }
          }}
        />
      ) : null}
      <Field
        label={`Headers of ${props.label}`}
        name={`headers_${props.label}`}
        multiline
        value={props.draft.headers}
        hint="One per line: Name: value"
        onInput={(headers) => props.onChange({ ...props.draft, headers })}
      />
      <Field
        label={`Body of ${props.label}`}
        name={`body_${props.label}`}
        multiline
        value={props.draft.body}
        onInput={(body) => props.onChange({ ...props.draft, body })}
      />
    </fieldset>
  );
}
