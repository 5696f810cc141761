import { useState } from "preact/hooks";
import { StatusBadge } from "../kit/badges.tsx";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded, NotFound } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { DestinationCard, SigningSecret } from "./destination-card.tsx";
import { DestinationForm } from "./destination-form.tsx";
import {
  type Bridge,
  deleteBridge,
  getBridge,
  listSecrets,
  listSources,
  setBridgeStatus,
} from "./routing.api.ts";
import { listTransformations } from "./transformations.api.ts";

/** One bridge: pause or resume it, and its destinations with their type-specific settings. */
export function BridgePage({ bridgeId }: { bridgeId: string }) {
  const { api, org, notify } = useApp();
  const loaded = useData(`bridge:${bridgeId}`, async (signal) => {
    const [bridge, sources, secrets, transformations] = await Promise.all([
      getBridge(api, bridgeId, signal),
      listSources(api, signal),
      listSecrets(api, signal).catch(() => []),
      listTransformations(api, signal).catch(() => []),
    ]);
    return { bridge, sources, secretNames: secrets.map((s) => s.name), transformations };
  });
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const [statusError, setStatusError] = useState("");
  const [deleting, setDeleting] = useState(false);
  const writer = canWrite(org);

  if (loaded.state === "failed" && loaded.error?.status === 404)
    return <NotFound what="Bridge" listHref="/bridges" listLabel="Back to bridges" />;

  const setBridge = (bridge: Bridge) => {
    if (loaded.data) loaded.set({ ...loaded.data, bridge });
  };

  // One click, undoable: shown at once, put back if the server refuses.
  async function toggle(bridge: Bridge) {
    const next = bridge.status === "active" ? "paused" : "active";
    setStatusError("");
    setBridge({ ...bridge, status: next });
    try {
      setBridge(await setBridgeStatus(api, bridge.id, next));
    } catch (error) {
      setBridge(bridge);
      setStatusError(errorText(error));
    }
  }

  return (
    <main id="main" class="page narrow">
      <p class="crumbs">
        <Link href="/bridges">Bridges</Link> /
      </p>
      <Loaded data={loaded} what="the bridge">
        {({ bridge, sources, secretNames, transformations }) => {
          const source = sources.find((s) => s.id === bridge.source_id);
          return (
            <>
              <div class="page-head">
                <h1>{bridge.name}</h1>
                <StatusBadge status={bridge.status} />
              </div>
              <p>
                Reads{" "}
                {source ? <Link href={`/sources/${source.id}`}>{source.name}</Link> : "a source"}
                {" · "}
                <Link href={`/events?bridge_id=${bridge.id}`}>Events of this bridge</Link>
              </p>
              {writer ? (
                <div class="actions">
                  <button type="button" class="button" onClick={() => toggle(bridge)}>
                    {bridge.status === "active" ? "Pause bridge" : "Resume bridge"}
                  </button>
                  <button type="button" class="button danger" onClick={() => setDeleting(true)}>
                    Delete bridge
                  </button>
                </div>
              ) : null}
              {statusError ? <Notice kind="error">{statusError}</Notice> : null}
              {secret ? (
                <SigningSecret
                  name={secret.name}
                  value={secret.value}
                  onDone={() => setSecret(null)}
                />
              ) : null}
              <h2>Destinations</h2>
              {bridge.destinations.length === 0 ? (
                <p class="empty">No destinations yet: events of this bridge go nowhere.</p>
              ) : null}
              {bridge.destinations.map((d) => (
                <DestinationCard
                  key={d.id}
                  bridgeId={bridge.id}
                  sourceId={bridge.source_id}
                  destination={d}
                  secretNames={secretNames}
                  transformations={transformations}
                  canWrite={writer}
                  onChanged={loaded.refetch}
                  onSecret={(value) => setSecret({ name: d.name, value })}
                />
              ))}
              {writer ? (
                adding ? (
                  <DestinationForm
                    sourceId={bridge.source_id}
                    bridgeId={bridge.id}
                    secretNames={secretNames}
                    transformations={transformations}
                    onCancel={() => setAdding(false)}
                    onSaved={(saved) => {
                      setAdding(false);
                      if (saved.signing_secret)
                        setSecret({ name: saved.name, value: saved.signing_secret });
                      loaded.refetch();
                    }}
                  />
                ) : (
                  <button type="button" class="button primary" onClick={() => setAdding(true)}>
                    Add a destination
                  </button>
                )
              ) : null}
              {deleting ? (
                <ConfirmDialog
                  title={`Delete bridge “${bridge.name}”?`}
                  confirmLabel="Delete bridge"
                  onClose={() => setDeleting(false)}
                  onConfirm={async () => {
                    try {
                      await deleteBridge(api, bridge.id);
                      notify(`Bridge “${bridge.name}” deleted`);
                      navigate("/bridges");
                    } catch (error) {
                      setStatusError(errorText(error));
                    }
                  }}
                >
                  <p>Its destinations go with it. Its events stay, under their source.</p>
                </ConfirmDialog>
              ) : null}
            </>
          );
        }}
      </Loaded>
    </main>
  );
}
