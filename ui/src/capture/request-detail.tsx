import { MethodBadge } from "../kit/badges.tsx";
import { bodyBytes, bodyFileName } from "../kit/body.ts";
import { BodyViewer } from "../kit/body-view.tsx";
import { downloadBytes } from "../kit/clipboard.ts";
import { CopyButton } from "../kit/copy-button.tsx";
import { formatBytes, formatFullDate, formatRelative, queryPairs } from "../kit/format.ts";
import { PairTable } from "../kit/pair-table.tsx";
import { useApp } from "../lib/context.ts";
import type { ActionResult, Endpoint, RequestRow } from "../lib/types.ts";
import { useData } from "../lib/use-load.ts";
import { toCurl } from "./curl.ts";
import { actionNames } from "./endpoints.api.ts";
import { ExportOne } from "./export-menu.tsx";
import { ReplayPanel } from "./replay-panel.tsx";
import { RequestActions } from "./request-actions.tsx";

interface Props {
  request: RequestRow;
  endpoint: Endpoint;
  onBack: () => void;
  /** The request's action run when the socket pushed one. */
  actionRun?: ActionResult[];
}

/** Everything about one captured request, and what can be done with it. */
export function RequestDetail({ request, endpoint, onBack, actionRun }: Props) {
  const { api } = useApp();
  // Read once per endpoint: this component stays mounted as the selection moves.
  const names = useData(`action-names:${endpoint.id}`, (signal) =>
    actionNames(api, endpoint.id, signal),
  );
  const curl = request.partial ? "" : toCurl(request, endpoint.webhook_url);
  const query = queryPairs(request.query_string);
  return (
    <article class="request-detail" aria-labelledby="detail-title" data-request-id={request.id}>
      <button type="button" class="button small back-button" onClick={onBack}>
        ← Back to the list
      </button>
      <h2 id="detail-title" class="detail-title">
        <MethodBadge method={request.method} />
        <span class="detail-path">
          {request.partial ? "Loading request…" : request.path || "/"}
        </span>
      </h2>
      <div class="actions">
        {curl ? <CopyButton text={curl} label="Copy as curl" /> : null}
        <button
          type="button"
          class="button small"
          disabled={request.partial && request.body_truncated}
          onClick={() =>
            downloadBytes(
              bodyBytes(request),
              bodyFileName(request.id, request.content_type),
              request.content_type ?? "application/octet-stream",
            )
          }
        >
          Download body
        </button>
        {request.partial ? null : <ExportOne endpoint={endpoint} request={request} />}
      </div>
      <dl class="meta">
        <Meta
          term="Received"
          value={`${formatFullDate(request.created_at)} (${formatRelative(request.created_at, Date.now())})`}
        />
        <Meta term="Client IP" value={request.remote_ip ?? "—"} />
        <Meta
          term="Size"
          value={`${formatBytes(request.size)} (${request.size.toLocaleString()} bytes)`}
        />
        <Meta term="Content type" value={request.content_type ?? "—"} />
        <Meta term="Answered with" value={`HTTP ${request.status}`} />
        <Meta term="Request ID" value={request.id} mono />
      </dl>
      {query.length > 0 ? (
        <section aria-labelledby="query-title">
          <h3 id="query-title">Query</h3>
          <PairTable pairs={query} label="Query parameters" first="Name" />
        </section>
      ) : null}
      <section aria-labelledby="headers-title">
        <h3 id="headers-title">Headers ({request.raw_headers.length}, in the order received)</h3>
        <PairTable pairs={request.raw_headers} label="Headers" first="Header" />
      </section>
      <section aria-labelledby="body-title">
        <h3 id="body-title">Body</h3>
        <BodyViewer request={request} key={request.id} />
      </section>
      <RequestActions
        endpointId={endpoint.id}
        requestId={request.id}
        live={actionRun}
        names={names.data}
        key={request.id}
      />
      {curl ? (
        <details class="curl">
          <summary>curl command</summary>
          <pre class="code" data-testid="curl-command">
            {curl}
          </pre>
        </details>
      ) : null}
      {request.partial ? null : (
        <ReplayPanel request={request} endpoint={endpoint} key={request.id} />
      )}
    </article>
  );
}

function Meta(props: { term: string; value: string; mono?: boolean }) {
  return (
    <div>
      <dt>{props.term}</dt>
      <dd class={props.mono ? "mono" : undefined}>{props.value}</dd>
    </div>
  );
}
