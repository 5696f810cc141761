import { useState } from "preact/hooks";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Field, FormErrors, useFocusFirstInvalid } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Time, useNow } from "../kit/time.tsx";
import { canWrite, useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import {
  createTransformation,
  listTransformations,
  type Transformation,
} from "./transformations.api.ts";

export const STARTER_CODE = `addHandler("transform", (request, context) => {
  // Change the request, return a new body, or return null to drop it.
  return request;
});
`;

/** The organization's transformations: code a destination runs on each event before sending. */
export function TransformationsPage() {
  const { api, org } = useApp();
  const now = useNow();
  const list = useData("transformations", (signal) => listTransformations(api, signal));
  const columns: Column<Transformation>[] = [
    { label: "Name", cell: (t) => <Link href={`/transformations/${t.id}`}>{t.name}</Link> },
    { label: "Lines", cell: (t) => t.code.split("\n").length },
    { label: "Changed", cell: (t) => <Time iso={t.updated_at} now={now} /> },
  ];
  return (
    <main id="main" class="page">
      <h1>Transformations</h1>
      {canWrite(org) ? <CreateTransformation /> : null}
      <Loaded data={list} what="transformations">
        {(rows) =>
          rows.length === 0 ? (
            <p class="empty">No transformations yet.</p>
          ) : (
            <DataTable
              caption="Transformations"
              columns={columns}
              rows={rows}
              rowKey={(t) => t.id}
            />
          )
        }
      </Loaded>
    </main>
  );
}

function CreateTransformation() {
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
      const created = await createTransformation(api, { name, code: STARTER_CODE });
      notify(`Transformation “${created.name}” created`);
      navigate(`/transformations/${created.id}`);
    } catch (error) {
      setFailure(formFailure(error));
      setBusy(false);
    }
  }
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="new-transformation">
      <h2 id="new-transformation">New transformation</h2>
      {failure ? (
        <FormErrors errors={failure.errors} claimed={["name"]} message={failure.message} />
      ) : null}
      <Field
        label="Name"
        name="name"
        value={name}
        required
        errors={failure?.errors.name}
        onInput={setName}
      />
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? "Creating…" : "Create transformation"}
      </button>
    </form>
  );
}
