import { useState } from "preact/hooks";
import { ActionResults } from "../kit/action-results.tsx";
import { Select } from "../kit/field.tsx";
import { ErrorView } from "../kit/loaded.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { type Action, type ActionResult, recentRequests, tryActions } from "./actions.api.ts";

/** Runs the saved chain on a captured request with no side effect, and shows each result. */
export function TryPanel(props: { endpointId: string; chain: Action[] }) {
  const { api } = useApp();
  const requests = useData(`action-try-requests:${props.endpointId}`, (signal) =>
    recentRequests(api, props.endpointId, signal),
  );
  const [picked, setPicked] = useState("");
  const [results, setResults] = useState<ActionResult[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const list = requests.data ?? [];
  const requestId = picked || list[0]?.id || "";
  const names = Object.fromEntries(props.chain.map((a) => [a.id, a.name]));

  async function run(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setResults(await tryActions(api, props.endpointId, requestId));
    } catch (e) {
      setResults(null);
      setError(e instanceof ApiError ? e : new ApiError(0, errorText(e)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card" aria-labelledby="try-title">
      <h2 id="try-title">Try on a captured request</h2>
      <p class="muted">
        Nothing is sent or stored: an HTTP request shows what it would send, a variable is not kept.
      </p>
      {requests.state === "ready" && list.length === 0 ? (
        <p class="empty">No captured requests yet: send one to the endpoint first.</p>
      ) : (
        <form onSubmit={run} noValidate>
          <Select
            label="Captured request"
            name="request_id"
            value={requestId}
            options={list.map((r) => ({
              value: r.id,
              label: `${r.method} ${r.path || "/"} · ${new Date(r.created_at).toLocaleString()}`,
            }))}
            onChange={setPicked}
          />
          <button type="submit" class="button primary" disabled={busy || !requestId}>
            {busy ? "Running…" : "Try the actions"}
          </button>
        </form>
      )}
      {error ? <ErrorView error={error} /> : null}
      {results ? (
        results.length === 0 ? (
          <p>The chain has no actions to run.</p>
        ) : (
          <ActionResults results={results} names={names} label="Try-out results" />
        )
      ) : null}
    </section>
  );
}
