import { useState } from "preact/hooks";
import { Field } from "../kit/field.tsx";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { type TestResult, testTransformation } from "./transformations.api.ts";

const SAMPLE = JSON.stringify(
  {
    method: "POST",
    path: "/",
    query: {},
    headers: { "content-type": "application/json" },
    body: { type: "order.created", id: "ord_1" },
  },
  null,
  2,
);

/** Runs the code as written (saved or not) on a pasted request, in the same sandbox. */
export function TestPanel(props: {
  code: string;
  onErrorLine: (line: number | undefined) => void;
}) {
  const { api } = useApp();
  const [request, setRequest] = useState(SAMPLE);
  const [requestError, setRequestError] = useState<string[] | undefined>();
  const [result, setResult] = useState<TestResult | null>(null);
  const [failed, setFailed] = useState("");
  const [busy, setBusy] = useState(false);
  async function run(event: Event) {
    event.preventDefault();
    let parsed: unknown;
    try {
      parsed = JSON.parse(request);
    } catch (error) {
      setRequestError([`Not valid JSON: ${(error as Error).message}`]);
      return;
    }
    setBusy(true);
    setFailed("");
    setRequestError(undefined);
    try {
      const answer = await testTransformation(api, props.code, parsed);
      setResult(answer);
      props.onErrorLine(answer.error?.line);
    } catch (error) {
      setResult(null);
      setFailed(errorText(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="card" onSubmit={run} noValidate aria-labelledby="test-title">
      <h2 id="test-title">Try it</h2>
      <Field
        label="Request (JSON)"
        name="request"
        multiline
        value={request}
        hint="{method, path, query, headers, body}, as the transformation receives it."
        errors={requestError}
        onInput={setRequest}
      />
      <button type="submit" class="button" disabled={busy}>
        {busy ? "Running…" : "Run test"}
      </button>
      {failed ? <Notice kind="error">{failed}</Notice> : null}
      {result ? (
        <section aria-label="Test result" aria-live="polite">
          {result.error ? (
            <Notice kind="error">
              <p>
                {result.error.code}: {result.error.message}
                {result.error.line ? ` (line ${result.error.line})` : ""}
              </p>
            </Notice>
          ) : result.request === null ? (
            <p>✔ Ran: the event is dropped (filtered).</p>
          ) : (
            <>
              <h3>Output</h3>
              <pre class="code" data-testid="test-output">
                {JSON.stringify(result.request, null, 2)}
              </pre>
            </>
          )}
          <h3>Logs</h3>
          {result.logs.length === 0 ? (
            <p class="muted">No logs.</p>
          ) : (
            <pre class="code">{result.logs.map((l) => `[${l.level}] ${l.message}`).join("\n")}</pre>
          )}
        </section>
      ) : null}
    </form>
  );
}
