import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { type Column, DataTable } from "../kit/data-table.tsx";
import { Field, FormErrors, useFocusFirstInvalid } from "../kit/field.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Notice } from "../kit/notice.tsx";
import { Time, useNow } from "../kit/time.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { useData } from "../lib/use-load.ts";
import {
  createSecret,
  deleteSecret,
  listSecrets,
  replaceSecret,
  type Secret,
} from "./routing.api.ts";

type Failure = { errors: Record<string, string[]>; message: string };

/** Named values destinations use as `{{NAME}}`: names and dates only, values never shown. */
export function SecretsPage() {
  const { api, org, notify } = useApp();
  const now = useNow();
  const secrets = useData("secrets", (signal) => listSecrets(api, signal));
  const [replacing, setReplacing] = useState<Secret | null>(null);
  const [deleting, setDeleting] = useState<Secret | null>(null);
  const [error, setError] = useState("");
  const writer = canWrite(org);
  const columns: Column<Secret>[] = [
    { label: "Name", cell: (s) => <code>{`{{${s.name}}}`}</code> },
    { label: "Created", cell: (s) => <Time iso={s.created_at} now={now} /> },
    { label: "Changed", cell: (s) => <Time iso={s.updated_at} now={now} /> },
  ];
  if (writer)
    columns.push({
      label: "Actions",
      cell: (s) => (
        <span class="actions">
          <button type="button" class="button small" onClick={() => setReplacing(s)}>
            Replace value of {s.name}
          </button>
          <button type="button" class="button small danger" onClick={() => setDeleting(s)}>
            Delete {s.name}
          </button>
        </span>
      ),
    });
  return (
    <main id="main" class="page narrow">
      <h1>Secrets</h1>
      <p class="lead">
        Write <code>{"{{NAME}}"}</code> in a destination's URL, headers or tokens; transformations
        read <code>context.env.NAME</code>. Values are encrypted and never shown again.
      </p>
      {writer ? (
        <SecretForm
          key={replacing?.name ?? "new"}
          replacing={replacing}
          onDone={() => {
            setReplacing(null);
            secrets.refetch();
          }}
        />
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Loaded data={secrets} what="secrets">
        {(rows) =>
          rows.length === 0 ? (
            <p class="empty">No secrets yet.</p>
          ) : (
            <DataTable caption="Secrets" columns={columns} rows={rows} rowKey={(s) => s.name} />
          )
        }
      </Loaded>
      {deleting ? (
        <ConfirmDialog
          title={`Delete secret “${deleting.name}”?`}
          confirmLabel="Delete secret"
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            setError("");
            try {
              await deleteSecret(api, deleting.name);
              notify(`Secret “${deleting.name}” deleted`);
              secrets.refetch();
            } catch (e) {
              setError(
                e instanceof ApiError && e.status === 409
                  ? `“${deleting.name}” is still used (${e.code}): change what refers to it first.`
                  : errorText(e),
              );
            }
          }}
        >
          <p>Destinations that refer to it fail until it is defined again.</p>
        </ConfirmDialog>
      ) : null}
    </main>
  );
}

function SecretForm(props: { replacing: Secret | null; onDone: () => void }) {
  const { api, notify } = useApp();
  const [name, setName] = useState(props.replacing?.name ?? "");
  const [value, setValue] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure>();
  useFocusFirstInvalid(failure?.errors ?? {});
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      if (props.replacing) await replaceSecret(api, props.replacing.name, value);
      else await createSecret(api, { name, value });
      notify(props.replacing ? `Secret “${name}” replaced` : `Secret “${name}” created`);
      setName("");
      setValue("");
      props.onDone();
    } catch (error) {
      setFailure(formFailure(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="secret-form-title">
      <h2 id="secret-form-title">
        {props.replacing ? `Replace the value of ${props.replacing.name}` : "New secret"}
      </h2>
      {failure ? (
        <FormErrors errors={failure.errors} claimed={["name", "value"]} message={failure.message} />
      ) : null}
      {props.replacing ? null : (
        <Field
          label="Secret name"
          name="name"
          value={name}
          required
          hint="Capital letters, digits and _, starting with a letter (SLACK_WEBHOOK_URL)."
          errors={failure?.errors.name}
          onInput={setName}
        />
      )}
      <Field
        label="Value"
        name="value"
        type="password"
        autoComplete="off"
        value={value}
        required
        errors={failure?.errors.value}
        onInput={setValue}
      />
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : props.replacing ? "Replace value" : "Create secret"}
        </button>
        {props.replacing ? (
          <button type="button" class="button" onClick={props.onDone}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
