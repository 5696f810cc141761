import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Link } from "../kit/link.tsx";
import { ErrorView, NotFound } from "../kit/loaded.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { Incidents } from "./incidents.tsx";
import { PageItems } from "./page-items.tsx";
import { Preview } from "./preview.tsx";
import { StatusPageForm } from "./status-page-form.tsx";
import { deletePage, getPage } from "./status-pages.api.ts";

/** One status page: its settings, what it shows, a preview of the public page and incidents. */
export function StatusPagePage({ pageId }: { pageId: string }) {
  const { api, org, notify } = useApp();
  const statusPage = useData(`status-page:${pageId}`, (signal) => getPage(api, pageId, signal));
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [round, setRound] = useState(0);
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const writer = canWrite(org);

  if (statusPage.error?.status === 404)
    return (
      <NotFound what="Status page" listHref="/status-pages" listLabel="Back to status pages" />
    );
  if (!statusPage.data)
    return (
      <main id="main" class="page">
        {statusPage.error ? (
          <ErrorView error={statusPage.error} onRetry={statusPage.refetch} />
        ) : (
          <p class="muted" aria-busy="true">
            Loading status page…
          </p>
        )}
      </main>
    );
  const p = statusPage.data;
  // Incidents and attachments do not change the page's own row: the preview is told to re-read.
  const changed = () => {
    statusPage.refetch();
    setRound((n) => n + 1);
  };

  return (
    <main id="main" class="page">
      <p class="crumbs">
        <Link href="/status-pages">Status pages</Link> /
      </p>
      <div class="page-head">
        <h1>{p.name}</h1>
      </div>
      <p class="muted">
        <code class="wrap">/status/{p.slug}</code>
        {p.custom_domain ? ` · also at ${p.custom_domain}` : ""}
        {p.description ? ` · ${p.description}` : ""}
      </p>
      {writer ? (
        <div class="actions">
          <button
            type="button"
            class="button"
            aria-expanded={editing}
            onClick={() => setEditing(!editing)}
          >
            Edit settings
          </button>
          <button type="button" class="button danger" onClick={() => setDeleting(true)}>
            Delete status page
          </button>
        </div>
      ) : null}
      {actionError ? <ErrorView error={actionError} /> : null}
      {editing ? (
        <StatusPageForm
          page={p}
          key={p.updated_at}
          onCancel={() => setEditing(false)}
          onSaved={(saved) => {
            statusPage.set(saved);
            setEditing(false);
          }}
        />
      ) : null}
      <div class="status-page-columns">
        <PageItems page={p} writer={writer} onChanged={changed} />
        <Preview page={p} round={round} />
      </div>
      <Incidents page={p} writer={writer} onChanged={() => setRound((n) => n + 1)} />
      {deleting ? (
        <ConfirmDialog
          title={`Delete status page “${p.name}”?`}
          confirmLabel="Delete status page"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            try {
              await deletePage(api, p.id);
              notify(`Status page “${p.name}” deleted`);
              navigate("/status-pages");
            } catch (e) {
              setActionError(e instanceof ApiError ? e : new ApiError(0, errorText(e)));
            }
          }}
        >
          <p>Its public address stops answering and its incidents go with it.</p>
        </ConfirmDialog>
      ) : null}
    </main>
  );
}
