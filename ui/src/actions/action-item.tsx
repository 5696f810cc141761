import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { ActionForm } from "./action-form.tsx";
import { type Action, deleteAction, updateAction } from "./actions.api.ts";
import { ACTION_TYPES } from "./types/index.ts";

/** One action of the chain: its place, type and state, and what an admin can do with it. */
export function ActionItem(props: {
  endpointId: string;
  chain: Action[];
  index: number;
  writer: boolean;
  onMove: (step: -1 | 1) => void;
  onChanged: () => void;
}) {
  const { api, notify } = useApp();
  const action = props.chain[props.index] as Action;
  const [enabled, setEnabled] = useState(action.enabled);
  const [toggleError, setToggleError] = useState("");
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const last = props.index === props.chain.length - 1;

  // Optimistic: shown at once, put back with the error beside it if refused.
  async function toggle() {
    const next = !enabled;
    setEnabled(next);
    setToggleError("");
    try {
      await updateAction(api, props.endpointId, action.id, { enabled: next });
      notify(`Action “${action.name}” ${next ? "enabled" : "disabled"}`);
      props.onChanged();
    } catch (e) {
      setEnabled(!next);
      setToggleError(errorText(e));
    }
  }

  return (
    <li class="action-item" data-action-id={action.id}>
      <div class="action-head">
        <span class="action-position" aria-hidden="true">
          {props.index + 1}
        </span>
        <div class="action-title">
          <strong>{action.name}</strong>{" "}
          <span class="muted">{ACTION_TYPES[action.type].label}</span>{" "}
          <span class={`badge tone-${enabled ? "ok" : "muted"}`}>
            <span aria-hidden="true">{enabled ? "●" : "○"}</span> {enabled ? "Enabled" : "Disabled"}
          </span>
        </div>
        {props.writer ? (
          <div class="actions">
            <button
              type="button"
              class="button small"
              disabled={props.index === 0}
              aria-label={`Move up: ${action.name}`}
              onClick={() => props.onMove(-1)}
            >
              ↑ Up
            </button>
            <button
              type="button"
              class="button small"
              disabled={last}
              aria-label={`Move down: ${action.name}`}
              onClick={() => props.onMove(1)}
            >
              ↓ Down
            </button>
            <button
              type="button"
              class="button small"
              aria-pressed={enabled}
              aria-label={`Enabled: ${action.name}`}
              onClick={toggle}
            >
              {enabled ? "Disable" : "Enable"}
            </button>
            <button
              type="button"
              class="button small"
              aria-expanded={editing}
              aria-label={`Edit: ${action.name}`}
              onClick={() => setEditing(!editing)}
            >
              Edit
            </button>
            <button
              type="button"
              class="button small danger"
              aria-label={`Delete: ${action.name}`}
              onClick={() => setDeleting(true)}
            >
              Delete
            </button>
          </div>
        ) : null}
      </div>
      {toggleError ? <p class="error-text">{toggleError}</p> : null}
      {editing ? (
        <ActionForm
          endpointId={props.endpointId}
          chain={props.chain}
          action={action}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            props.onChanged();
          }}
        />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete action “${action.name}”?`}
          confirmLabel="Delete action"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            try {
              await deleteAction(api, props.endpointId, action.id);
              notify(`Action “${action.name}” deleted`);
            } catch (e) {
              notify(errorText(e));
            }
            props.onChanged();
          }}
        >
          <p>Captures stop running it at once. Past run records keep its result.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}
