import { useState } from "preact/hooks";
import { StatusBadge } from "../kit/badges.tsx";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { CopyButton } from "../kit/copy-button.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded, NotFound } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { DedupForm } from "./dedup-form.tsx";
import { deleteSource, getSource, getSourceStats, listBridges } from "./routing.api.ts";
import { VerificationForm } from "./verification-form.tsx";

/** One source: where to send webhooks, its deduplication and numbers, and the bridges it feeds. */
export function SourcePage({ sourceId }: { sourceId: string }) {
  const { api, org, notify } = useApp();
  const loaded = useData(`source:${sourceId}`, async (signal) => {
    const [source, stats, bridges] = await Promise.all([
      getSource(api, sourceId, signal),
      getSourceStats(api, sourceId, signal).catch(() => null),
      listBridges(api, signal),
    ]);
    return { source, stats, bridges: bridges.filter((b) => b.source_id === sourceId) };
  });
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState("");
  if (loaded.state === "failed" && loaded.error?.status === 404)
    return <NotFound what="Source" listHref="/sources" listLabel="Back to sources" />;
  return (
    <main id="main" class="page narrow">
      <p class="crumbs">
        <Link href="/sources">Sources</Link> /
      </p>
      <Loaded data={loaded} what="the source">
        {({ source, stats, bridges }) => (
          <>
            <h1>{source.name}</h1>
            <section class="card" aria-labelledby="ingest-title">
              <h2 id="ingest-title">Ingest URL</h2>
              <p>
                <code class="wrap">{source.ingest_url}</code>{" "}
                <CopyButton text={source.ingest_url} label="Copy ingest URL" />
              </p>
              <p class="hint">Any method and any sub-path after it are kept with the event.</p>
            </section>
            {stats ? (
              <section class="card" aria-labelledby="stats-title">
                <h2 id="stats-title">Last 24 hours</h2>
                <p>
                  {stats.total_requests} requests · {stats.duplicates_rejected} duplicates dropped (
                  {stats.duplicate_rate}%)
                </p>
              </section>
            ) : null}
            {canWrite(org) ? (
              <DedupForm
                source={source}
                onSaved={(next) => loaded.set({ source: next, stats, bridges })}
              />
            ) : null}
            {canWrite(org) ? (
              <VerificationForm
                source={source}
                onSaved={(next) => loaded.set({ source: next, stats, bridges })}
              />
            ) : null}
            <section class="card" aria-labelledby="source-bridges-title">
              <h2 id="source-bridges-title">Bridges</h2>
              {bridges.length === 0 ? (
                <p class="empty">
                  No bridge reads this source: its events are stored as unrouted.{" "}
                  <Link href="/bridges">Create a bridge</Link>
                </p>
              ) : (
                <ul>
                  {bridges.map((b) => (
                    <li key={b.id}>
                      <Link href={`/bridges/${b.id}`}>{b.name}</Link>{" "}
                      <StatusBadge status={b.status} /> · {b.destinations.length} destinations
                    </li>
                  ))}
                </ul>
              )}
              <p>
                <Link href={`/events?source_id=${source.id}`}>Events of this source</Link>
              </p>
            </section>
            {canWrite(org) ? (
              <div class="actions">
                <button type="button" class="button danger" onClick={() => setDeleting(true)}>
                  Delete source
                </button>
              </div>
            ) : null}
            {deleteError ? <Notice kind="error">{deleteError}</Notice> : null}
            {deleting ? (
              <ConfirmDialog
                title={`Delete source “${source.name}”?`}
                confirmLabel="Delete source"
                onClose={() => setDeleting(false)}
                onConfirm={async () => {
                  try {
                    await deleteSource(api, source.id);
                    notify(`Source “${source.name}” deleted`);
                    navigate("/sources");
                  } catch (error) {
                    setDeleteError(errorText(error));
                  }
                }}
              >
                <p>Its bridges and their destinations are deleted with it.</p>
              </ConfirmDialog>
            ) : null}
          </>
        )}
      </Loaded>
    </main>
  );
}
