import { ActionResults } from "../kit/action-results.tsx";
import { ErrorView } from "../kit/loaded.tsx";
import { useApp } from "../lib/context.ts";
import type { ActionResult } from "../lib/types.ts";
import { useData } from "../lib/use-load.ts";
import { requestActionResults } from "./endpoints.api.ts";

/**
 * What the endpoint's actions did with one captured request. A run pushed over the socket
 * (`live`) replaces what was read, so a run that ends after the request is opened still shows.
 */
export function RequestActions(props: {
  endpointId: string;
  requestId: string;
  live: ActionResult[] | undefined;
  names?: Record<string, string>;
}) {
  const { api } = useApp();
  const read = useData(`request-actions:${props.requestId}`, (signal) =>
    requestActionResults(api, props.endpointId, props.requestId, signal),
  );
  const results = props.live ?? read.data;
  if (read.error && !props.live) {
    // A plan without actions has no runs to show: not an error for this screen.
    if (read.error.code === "feature_not_available") return null;
    return <ErrorView error={read.error} onRetry={read.refetch} />;
  }
  if (!results || results.length === 0) return null;
  return (
    <section aria-labelledby="actions-title">
      <h3 id="actions-title">Actions ({results.length})</h3>
      <ActionResults results={results} names={props.names} label="Action results" />
    </section>
  );
}
