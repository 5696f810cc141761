import { useState } from "preact/hooks";
import { Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { type Action, type ActionType, createAction, updateAction } from "./actions.api.ts";
import type { Draft } from "./config-text.ts";
import { templatesAt } from "./hints.ts";
import { ACTION_TYPES } from "./types/index.ts";

const TYPE_OPTIONS = Object.entries(ACTION_TYPES).map(([value, form]) => ({
  value,
  label: form.label,
}));

/**
 * Adds an action at the end of the chain, or changes one (its type stays). The templates listed
 * are those the action can read at its place in the chain.
 */
export function ActionForm(props: {
  endpointId: string;
  chain: Action[];
  action?: Action;
  onSaved: (action: Action) => void;
  onCancel?: () => void;
}) {
  const { api, notify } = useApp();
  const editing = props.action;
  const [type, setType] = useState<ActionType>(editing?.type ?? "condition");
  const [name, setName] = useState(editing?.name ?? "");
  const [draft, setDraft] = useState<Draft>(() =>
    ACTION_TYPES[editing?.type ?? "condition"].fromConfig(editing?.config ?? {}),
  );
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useFocusFirstInvalid(errors);
  const form = ACTION_TYPES[type];
  const position = editing ? props.chain.findIndex((a) => a.id === editing.id) : props.chain.length;
  const templates = templatesAt(props.chain, position);
  const clear = (key: string) => {
    if (!errors[key]) return;
    const { [key]: _, ...rest } = errors;
    setErrors(rest);
  };

  async function submit(event: Event) {
    event.preventDefault();
    const built = form.build(draft);
    if ("errors" in built) {
      setErrors(built.errors);
      setMessage(undefined);
      return;
    }
    setBusy(true);
    try {
      const saved = editing
        ? await updateAction(api, props.endpointId, editing.id, { name, config: built.config })
        : await createAction(api, props.endpointId, { type, name, config: built.config });
      setErrors({});
      setMessage(undefined);
      notify(`Action “${saved.name}” ${editing ? "saved" : "added"}`);
      if (!editing) {
        setName("");
        setDraft(form.fromConfig({}));
      }
      props.onSaved(saved);
    } catch (e) {
      const failure = formFailure(e);
      setErrors(failure.errors);
      setMessage(Object.keys(failure.errors).length > 0 ? undefined : failure.message);
    } finally {
      setBusy(false);
    }
  }

  const label = editing ? "Save action" : "Add action";
  return (
    <form class="card action-form" onSubmit={submit} noValidate aria-label={label}>
      {editing ? null : (
        <Select
          label="Type"
          name="type"
          value={type}
          options={TYPE_OPTIONS}
          errors={errors.type}
          onChange={(next) => {
            setType(next as ActionType);
            setDraft(ACTION_TYPES[next as ActionType].fromConfig({}));
            setErrors({});
          }}
        />
      )}
      <Field
        label="Action name"
        name="name"
        value={name}
        onInput={(v) => {
          setName(v);
          clear("name");
        }}
        errors={errors.name}
        required
      />
      <form.Fields
        draft={draft}
        errors={errors}
        set={(key, value) => {
          setDraft((d) => ({ ...d, [key]: value }));
          for (const claimed of form.claimed) if (claimed.endsWith(key)) clear(claimed);
          clear("config");
        }}
      />
      <details class="template-hints">
        <summary>Templates available here ({templates.length})</summary>
        <ul>
          {templates.map((t) => (
            <li key={t}>
              <code>{t}</code>
            </li>
          ))}
        </ul>
      </details>
      <FormErrors errors={errors} claimed={["type", "name", ...form.claimed]} message={message} />
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : label}
        </button>
        {props.onCancel ? (
          <button type="button" class="button" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
