import { useState } from "preact/hooks";
import { StatusBadge } from "../kit/badges.tsx";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { canWrite, useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { type Bridge, createBridge, listBridges, listSources, type Source } from "./routing.api.ts";

/** Every bridge: which source it reads, where it sends, and whether it runs. */
export function BridgesPage() {
  const { api, org } = useApp();
  const loaded = useData("bridges", async (signal) => {
    const [bridges, sources] = await Promise.all([
      listBridges(api, signal),
      listSources(api, signal),
    ]);
    return { bridges, sources };
  });
  return (
    <main id="main" class="page">
      <h1>Bridges</h1>
      <Loaded data={loaded} what="bridges">
        {({ bridges, sources }) => {
          const columns: Column<Bridge>[] = [
            { label: "Name", cell: (b) => <Link href={`/bridges/${b.id}`}>{b.name}</Link> },
            { label: "Status", cell: (b) => <StatusBadge status={b.status} /> },
            {
              label: "Source",
              cell: (b) => sources.find((s) => s.id === b.source_id)?.name ?? b.source_id,
            },
            {
              label: "Destinations",
              cell: (b) => b.destinations.map((d) => `${d.name} (${d.type})`).join(", ") || "none",
            },
          ];
          return (
            <>
              {canWrite(org) ? <CreateBridge sources={sources} /> : null}
              {bridges.length === 0 ? (
                <p class="empty">
                  No bridges yet. A bridge sends a source's events to destinations.
                </p>
              ) : (
                <DataTable
                  caption="Bridges"
                  columns={columns}
                  rows={bridges}
                  rowKey={(b) => b.id}
                />
              )}
            </>
          );
        }}
      </Loaded>
    </main>
  );
}

const NEW_SOURCE = "";

function CreateBridge(props: { sources: Source[] }) {
  const { api, notify } = useApp();
  const [name, setName] = useState("");
  const [sourceId, setSourceId] = useState(NEW_SOURCE);
  const [sourceName, setSourceName] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ errors: Record<string, string[]>; message: string }>();
  useFocusFirstInvalid(failure?.errors ?? {});
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      const bridge = await createBridge(
        api,
        sourceId === NEW_SOURCE
          ? { name, source: { name: sourceName, type: "webhook" } }
          : { name, source_id: sourceId },
      );
      notify(`Bridge “${bridge.name}” created`);
      navigate(`/bridges/${bridge.id}`);
    } catch (error) {
      setFailure(formFailure(error));
      setBusy(false);
    }
  }
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="new-bridge-title">
      <h2 id="new-bridge-title">New bridge</h2>
      {failure ? (
        <FormErrors
          errors={failure.errors}
          claimed={["name", "source_id", "source.name"]}
          message={failure.message}
        />
      ) : null}
      <Field
        label="Name"
        name="name"
        value={name}
        required
        errors={failure?.errors.name}
        onInput={setName}
      />
      <Select
        label="Source"
        name="source_id"
        value={sourceId}
        options={[
          { value: NEW_SOURCE, label: "A new source" },
          ...props.sources.map((s) => ({ value: s.id, label: s.name })),
        ]}
        errors={failure?.errors.source_id}
        onChange={setSourceId}
      />
      {sourceId === NEW_SOURCE ? (
        <Field
          label="New source name"
          name="source.name"
          value={sourceName}
          required
          errors={failure?.errors["source.name"]}
          onInput={setSourceName}
        />
      ) : null}
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? "Creating…" : "Create bridge"}
      </button>
    </form>
  );
}
