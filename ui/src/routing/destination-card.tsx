import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { CopyButton } from "../kit/copy-button.tsx";
import { Notice } from "../kit/notice.tsx";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { DestinationForm } from "./destination-form.tsx";
import { type Destination, deleteDestination, rotateSigningSecret } from "./routing.api.ts";
import { DESTINATION_FORMS } from "./types/index.ts";

/** A destination's settings as written (secrets as their `{{NAME}}`), with its actions. */
export function DestinationCard(props: {
  bridgeId: string;
  sourceId?: string;
  destination: Destination;
  secretNames: string[];
  transformations: { id: string; name: string }[];
  canWrite: boolean;
  onChanged: () => void;
  onSecret: (value: string) => void;
}) {
  const { api, notify } = useApp();
  const d = props.destination;
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<"delete" | "rotate" | null>(null);
  const [error, setError] = useState("");
  if (editing)
    return (
      <DestinationForm
        sourceId={props.sourceId}
        bridgeId={props.bridgeId}
        destination={d}
        secretNames={props.secretNames}
        transformations={props.transformations}
        onCancel={() => setEditing(false)}
        onSaved={() => {
          setEditing(false);
          props.onChanged();
        }}
      />
    );
  const target =
    d.type === "http"
      ? `${d.method} ${d.url}`
      : d.type === "telegram"
        ? `chat ${d.chat_id}`
        : d.webhook_url;
  return (
    <section class="card" aria-label={`Destination ${d.name}`}>
      <h3>
        {d.name} <span class="muted">({DESTINATION_FORMS[d.type].label})</span>
      </h3>
      <p class="mono wrap">{target}</p>
      <p class="muted small">
        Priority {d.priority}
        {d.type === "http" ? ` · ${d.max_retries} retries` : ""}
        {d.filters.length ? ` · ${d.filters.length} filter(s)` : " · no filters"}
        {d.transformation_id
          ? ` · transformed by ${props.transformations.find((t) => t.id === d.transformation_id)?.name ?? "a transformation"}`
          : ""}
      </p>
      {props.canWrite ? (
        <div class="actions">
          <button type="button" class="button small" onClick={() => setEditing(true)}>
            Edit {d.name}
          </button>
          {d.type === "http" ? (
            <button type="button" class="button small" onClick={() => setConfirm("rotate")}>
              Rotate signing secret of {d.name}
            </button>
          ) : null}
          <button type="button" class="button small danger" onClick={() => setConfirm("delete")}>
            Delete {d.name}
          </button>
        </div>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      {confirm === "delete" ? (
        <ConfirmDialog
          title={`Delete destination “${d.name}”?`}
          confirmLabel="Delete destination"
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            try {
              await deleteDestination(api, props.bridgeId, d.id);
              notify(`Destination “${d.name}” deleted`);
              props.onChanged();
            } catch (e) {
              setError(errorText(e));
            }
          }}
        >
          <p>Deliveries waiting for it are dropped.</p>
        </ConfirmDialog>
      ) : null}
      {confirm === "rotate" ? (
        <ConfirmDialog
          title={`Rotate the signing secret of “${d.name}”?`}
          confirmLabel="Rotate secret"
          onClose={() => setConfirm(null)}
          onConfirm={async () => {
            try {
              props.onSecret((await rotateSigningSecret(api, props.bridgeId, d.id)).signing_secret);
            } catch (e) {
              setError(errorText(e));
            }
          }}
        >
          <p>For 24 hours the old secret still signs too, so the receiver can switch.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** A signing secret, shown this once: Weir keeps it sealed and never shows it again. */
export function SigningSecret(props: { name: string; value: string; onDone: () => void }) {
  return (
    <Notice kind="success">
      <p>
        Signing secret of {props.name} (shown once): <code class="wrap">{props.value}</code>{" "}
        <CopyButton text={props.value} label="Copy signing secret" />
      </p>
      <button type="button" class="button small" onClick={props.onDone}>
        I have saved it
      </button>
    </Notice>
  );
}
