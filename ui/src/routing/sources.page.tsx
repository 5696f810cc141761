import { useState } from "preact/hooks";
import { CopyButton } from "../kit/copy-button.tsx";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Field, FormErrors, useFocusFirstInvalid } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { canWrite, useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { useData } from "../lib/use-load.ts";
import { createSource, listSources, type Source } from "./routing.api.ts";

/** Where webhooks come in: each source's ingest URL, and whether it drops duplicates. */
export function SourcesPage() {
  const { api, org } = useApp();
  const sources = useData("sources", (signal) => listSources(api, signal));
  const columns: Column<Source>[] = [
    { label: "Name", cell: (s) => <Link href={`/sources/${s.id}`}>{s.name}</Link> },
    {
      label: "Ingest URL",
      cell: (s) => (
        <span class="url-cell">
          <code class="wrap">{s.ingest_url}</code>{" "}
          <CopyButton text={s.ingest_url} label={`Copy ingest URL of ${s.name}`} />
        </span>
      ),
    },
    {
      label: "Deduplication",
      cell: (s) =>
        s.deduplication_config?.enabled === false || !s.deduplication_config ? "Off" : "On",
    },
  ];
  return (
    <main id="main" class="page">
      <h1>Sources</h1>
      {canWrite(org) ? <CreateSource onCreated={sources.refetch} /> : null}
      <Loaded data={sources} what="sources">
        {(list) =>
          list.length === 0 ? (
            <p class="empty">No sources yet. Create one above, or with a bridge.</p>
          ) : (
            <DataTable caption="Sources" columns={columns} rows={list} rowKey={(s) => s.id} />
          )
        }
      </Loaded>
    </main>
  );
}

function CreateSource(props: { onCreated: () => void }) {
  const { api, notify } = useApp();
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ errors: Record<string, string[]>; message: string }>();
  useFocusFirstInvalid(failure?.errors ?? {});
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      const source = await createSource(api, { name });
      notify(`Source “${source.name}” created`);
      setName("");
      props.onCreated();
    } catch (error) {
      setFailure(formFailure(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="card inline-create" onSubmit={submit} noValidate>
      <h2>New source</h2>
      {failure ? (
        <FormErrors errors={failure.errors} claimed={["name"]} message={failure.message} />
      ) : null}
      <Field
        label="Name"
        name="name"
        value={name}
        required
        errors={failure?.errors.name}
        onInput={(v) => {
          setName(v);
          if (failure?.errors.name) setFailure(undefined);
        }}
      />
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? "Creating…" : "Create source"}
      </button>
    </form>
  );
}
