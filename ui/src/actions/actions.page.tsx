import { useState } from "preact/hooks";
import { Link } from "../kit/link.tsx";
import { Loaded, NotFound } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { ActionForm } from "./action-form.tsx";
import { ActionItem } from "./action-item.tsx";
import { type Action, getEndpoint, listActions, reorderActions } from "./actions.api.ts";
import { moved } from "./hints.ts";
import { TryPanel } from "./try-panel.tsx";

/** An endpoint's ordered actions: what runs on every capture, in order, and a try-out. */
export function ActionsPage({ endpointId }: { endpointId: string }) {
  const { api, org } = useApp();
  const endpoint = useData(`endpoint:${endpointId}`, (signal) =>
    getEndpoint(api, endpointId, signal),
  );
  const actions = useData(`actions:${endpointId}`, (signal) =>
    listActions(api, endpointId, signal),
  );
  const [moveError, setMoveError] = useState("");
  const writer = canWrite(org);
  if (endpoint.error?.status === 404)
    return <NotFound what="Endpoint" listHref="/endpoints" listLabel="Back to endpoints" />;

  // Optimistic: the new order shows at once and is put back if the server refuses it.
  async function move(chain: Action[], index: number, step: -1 | 1) {
    const next = moved(chain, index, step) as Action[];
    if (next === chain) return;
    actions.set(next);
    setMoveError("");
    try {
      actions.set(
        await reorderActions(
          api,
          endpointId,
          next.map((a) => a.id),
        ),
      );
    } catch (e) {
      actions.set(chain);
      setMoveError(errorText(e));
    }
  }

  return (
    <main id="main" class="page narrow">
      <p class="crumbs">
        <Link href="/endpoints">Endpoints</Link> /{" "}
        <Link href={`/endpoints/${endpointId}`}>{endpoint.data?.name ?? "Endpoint"}</Link> /{" "}
        <Link href={`/endpoints/${endpointId}/settings`}>Settings</Link> /
      </p>
      <h1>Actions</h1>
      <p class="muted">
        They run in this order on every capture of the endpoint, after it is stored.
      </p>
      {actions.error?.code === "feature_not_available" ? (
        <Notice kind="info">
          Your plan does not include actions: they come with the Team and Enterprise plans.
        </Notice>
      ) : (
        <Loaded data={actions} what="actions">
          {(chain) => (
            <>
              {moveError ? <Notice kind="error">{moveError}</Notice> : null}
              {chain.length === 0 ? (
                <p class="empty">No actions yet: captures are only stored.</p>
              ) : (
                <ol class="action-list" aria-label="Actions, in the order they run">
                  {chain.map((action, index) => (
                    <ActionItem
                      key={`${action.id}:${action.updated_at}:${action.enabled}`}
                      endpointId={endpointId}
                      chain={chain}
                      index={index}
                      writer={writer}
                      onMove={(step) => move(chain, index, step)}
                      onChanged={actions.refetch}
                    />
                  ))}
                </ol>
              )}
              {writer ? (
                <>
                  <h2>Add an action</h2>
                  <ActionForm endpointId={endpointId} chain={chain} onSaved={actions.refetch} />
                  {chain.length > 0 ? <TryPanel endpointId={endpointId} chain={chain} /> : null}
                </>
              ) : null}
            </>
          )}
        </Loaded>
      )}
    </main>
  );
}
