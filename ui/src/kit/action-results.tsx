import type { ActionResult } from "../../../src/actions/actions.model.ts";

const STATUS: Record<ActionResult["status"], { icon: string; label: string; tone: string }> = {
  ok: { icon: "✔", label: "OK", tone: "ok" },
  skipped: { icon: "⊘", label: "Skipped", tone: "muted" },
  error: { icon: "✖", label: "Error", tone: "danger" },
};

/**
 * One run of an endpoint's actions, each result in words with what it produced: shown by the
 * actions screen's try-out and by the inspector for a captured request.
 */
export function ActionResults(props: {
  results: ActionResult[];
  /** Action names by id, when known; a result names its type otherwise. */
  names?: Record<string, string>;
  label: string;
}) {
  return (
    <ol class="action-results" aria-label={props.label}>
      {props.results.map((result, index) => {
        const s = STATUS[result.status];
        return (
          <li key={`${result.action_id}-${index}`}>
            <p>
              <span class={`badge tone-${s.tone}`}>
                <span aria-hidden="true">{s.icon}</span> {s.label}
              </span>{" "}
              <strong>{props.names?.[result.action_id] ?? result.type}</strong>{" "}
              <span class="muted">
                ({result.type}, {result.duration_ms.toFixed(1)} ms)
              </span>
            </p>
            {result.error ? <p class="error-text">{result.error}</p> : null}
            {result.output === null || result.output === undefined ? null : (
              <pre class="code">{JSON.stringify(result.output, null, 2)}</pre>
            )}
          </li>
        );
      })}
    </ol>
  );
}
