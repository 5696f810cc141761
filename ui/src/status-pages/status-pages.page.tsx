import { useState } from "preact/hooks";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { canWrite, useApp } from "../lib/context.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { StatusPageForm } from "./status-page-form.tsx";
import { listPages, type StatusPage } from "./status-pages.api.ts";

/** Every status page of the organization with its public link and how many monitors it shows. */
export function StatusPagesPage() {
  const { api, org } = useApp();
  const pages = useData("status-pages", (signal) => listPages(api, signal));
  const [creating, setCreating] = useState(false);
  const writer = canWrite(org);
  const columns: Column<StatusPage>[] = [
    { label: "Name", cell: (p) => <Link href={`/status-pages/${p.id}`}>{p.name}</Link> },
    {
      label: "Public link",
      cell: (p) => (
        <a href={`/status/${p.slug}`} target="_blank" rel="noopener">
          /status/{p.slug}
        </a>
      ),
    },
    { label: "Monitors", cell: (p) => String(p.monitors.length) },
    { label: "Delivery components", cell: (p) => String(p.components.length) },
  ];
  return (
    <main id="main" class="page">
      <div class="page-head">
        <h1>Status pages</h1>
        <div class="actions">
          <Link href="/maintenance" class="button">
            Maintenance windows
          </Link>
          {writer ? (
            <button
              type="button"
              class="button primary"
              aria-expanded={creating}
              onClick={() => setCreating(!creating)}
            >
              New status page
            </button>
          ) : null}
        </div>
      </div>
      {creating ? (
        <StatusPageForm
          onCancel={() => setCreating(false)}
          onSaved={(p) => navigate(`/status-pages/${p.id}`)}
        />
      ) : null}
      <Loaded data={pages} what="status pages">
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No status pages yet.</p>
          ) : (
            <DataTable caption="Status pages" columns={columns} rows={list} rowKey={(p) => p.id} />
          )
        }
      </Loaded>
    </main>
  );
}
