import { useState } from "preact/hooks";
import { CodeInput } from "../kit/code-input.tsx";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Field, FormErrors } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded, NotFound } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { navigate } from "../lib/router.ts";
import { useData } from "../lib/use-load.ts";
import { TestPanel } from "./transformation-test.tsx";
import {
  deleteTransformation,
  getTransformation,
  saveTransformation,
  type Transformation,
} from "./transformations.api.ts";

/** The line a message names ("SyntaxError on line 3: …"), if any. */
export function lineOf(message: string | undefined): number | undefined {
  const found = /line (\d+)/.exec(message ?? "");
  return found ? Number(found[1]) : undefined;
}

export function TransformationPage({ transformationId }: { transformationId: string }) {
  const { api } = useApp();
  const loaded = useData(`transformation:${transformationId}`, (signal) =>
    getTransformation(api, transformationId, signal),
  );
  if (loaded.state === "failed" && loaded.error?.status === 404)
    return (
      <NotFound
        what="Transformation"
        listHref="/transformations"
        listLabel="Back to transformations"
      />
    );
  return (
    <main id="main" class="page">
      <p class="crumbs">
        <Link href="/transformations">Transformations</Link> /
      </p>
      <Loaded data={loaded} what="the transformation">
        {(t) => <Editor transformation={t} onSaved={loaded.set} key={t.id} />}
      </Loaded>
    </main>
  );
}

function Editor(props: { transformation: Transformation; onSaved: (t: Transformation) => void }) {
  const { api, org, notify } = useApp();
  const t = props.transformation;
  const [name, setName] = useState(t.name);
  const [code, setCode] = useState(t.code);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ errors: Record<string, string[]>; message: string }>();
  const [testLine, setTestLine] = useState<number | undefined>();
  const [deleting, setDeleting] = useState(false);
  const [deleteError, setDeleteError] = useState("");
  const writer = canWrite(org);

  async function save(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      props.onSaved(await saveTransformation(api, t.id, { name, code }));
      notify(`Transformation “${name}” saved`);
    } catch (error) {
      setFailure(formFailure(error));
    } finally {
      setBusy(false);
    }
  }
  const codeErrors = failure?.errors.code;
  return (
    <>
      <h1>{t.name}</h1>
      <form onSubmit={save} noValidate class="card">
        {failure ? (
          <FormErrors
            errors={failure.errors}
            claimed={["name", "code"]}
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
        <CodeInput
          label="Code"
          name="code"
          value={code}
          errors={codeErrors}
          errorLine={lineOf(codeErrors?.[0]) ?? testLine}
          onInput={(v) => {
            setCode(v);
            if (codeErrors) setFailure(undefined);
          }}
        />
        {writer ? (
          <div class="actions">
            <button type="submit" class="button primary" disabled={busy}>
              {busy ? "Saving…" : "Save transformation"}
            </button>
            <button type="button" class="button danger" onClick={() => setDeleting(true)}>
              Delete transformation
            </button>
          </div>
        ) : null}
      </form>
      {deleteError ? <Notice kind="error">{deleteError}</Notice> : null}
      {writer ? <TestPanel code={code} onErrorLine={setTestLine} /> : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete transformation “${t.name}”?`}
          confirmLabel="Delete transformation"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            try {
              await deleteTransformation(api, t.id);
              notify(`Transformation “${t.name}” deleted`);
              navigate("/transformations");
            } catch (error) {
              setDeleteError(errorText(error));
            }
          }}
        >
          <p>Destinations that use it must be changed first.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
