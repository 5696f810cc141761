import { useState } from "preact/hooks";
import { Notice } from "../kit/notice.tsx";
import { useNow } from "../kit/time.tsx";
import { canWrite, useApp } from "../lib/context.ts";
import { endpointUsage, PLAN_LABEL } from "../lib/plans.ts";
import type { Endpoint } from "../lib/types.ts";
import { useData } from "../lib/use-load.ts";
import { CreateEndpointForm } from "./create-endpoint-form.tsx";
import { EndpointCard } from "./endpoint-card.tsx";

/** The organization's endpoints: create, rename, pause/resume, delete, open the inspector. */
export function EndpointsPage() {
  const { api, org } = useApp();
  const now = useNow();
  const endpoints = useData("endpoints", (signal) =>
    api.get<{ data: Endpoint[] }>("/api/v1/endpoints", signal).then((r) => r.data),
  );
  const [justCreated, setJustCreated] = useState<string | null>(null);
  const limits = org.limits;
  const list = endpoints.data ?? [];
  const usage = endpointUsage(list.length, limits.debug_endpoints);

  const replace = (updated: Endpoint) =>
    endpoints.set(list.map((e) => (e.id === updated.id ? { ...e, ...updated } : e)));
  const remove = (id: string) => endpoints.set(list.filter((e) => e.id !== id));

  return (
    <main id="main" class="page" tabIndex={-1}>
      <div class="page-head">
        <h1>Endpoints</h1>
        <p class="plan-usage">
          <span class="plan-name">{PLAN_LABEL[org.plan]} plan</span> · <span>{usage.text}</span>
        </p>
      </div>
      <p class="lead">
        Each endpoint has a permanent capture URL. Point a webhook sender at it, then open the
        endpoint to watch requests arrive live.
      </p>
      {usage.reached ? (
        <Notice kind="warning">
          <strong>Endpoint limit reached.</strong> The {PLAN_LABEL[org.plan]} plan allows{" "}
          {limits.debug_endpoints} endpoints. Delete one to make room, or ask the server
          administrator for a larger plan (<code>weir admin set-plan</code>).
        </Notice>
      ) : null}
      {canWrite(org) ? (
        <CreateEndpointForm
          onCreated={(endpoint) => {
            endpoints.set([endpoint, ...list]);
            setJustCreated(endpoint.id);
          }}
        />
      ) : (
        <Notice kind="info">
          Your role is member: you can watch requests, but not create or change endpoints.
        </Notice>
      )}
      <section aria-labelledby="endpoint-list-title">
        <h2 id="endpoint-list-title" class="visually-hidden">
          Your endpoints
        </h2>
        {endpoints.state === "loading" ? <p class="muted">Loading endpoints…</p> : null}
        {endpoints.state === "failed" ? (
          <Notice kind="error">{endpoints.error?.message}</Notice>
        ) : null}
        {endpoints.state === "ready" && list.length === 0 ? (
          <p class="empty">No endpoints yet. Create the first one above.</p>
        ) : null}
        <ul class="endpoint-list">
          {list.map((endpoint) => (
            <EndpointCard
              key={endpoint.id}
              endpoint={endpoint}
              now={now}
              highlight={endpoint.id === justCreated}
              onChanged={replace}
              onDeleted={remove}
            />
          ))}
        </ul>
      </section>
    </main>
  );
}
