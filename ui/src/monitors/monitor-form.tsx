import { useState } from "preact/hooks";
import { Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { ParentSelect } from "./monitor-family.tsx";
import { createMonitor, type Monitor, type MonitorType, updateMonitor } from "./monitors.api.ts";
import { MONITOR_TYPES } from "./types/index.ts";
import type { Draft } from "./types/spec.tsx";

const TYPE_OPTIONS = Object.entries(MONITOR_TYPES).map(([value, form]) => ({
  value,
  label: form.label,
}));
const COMMON = ["name", "type", "interval_seconds", "timeout_seconds", "retries", "parent_id"];
const whole = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text) : text);

/** Creates a monitor of any type, or changes one (its type stays). */
export function MonitorForm(props: {
  monitor?: Monitor;
  onSaved: (monitor: Monitor) => void;
  onCancel?: () => void;
}) {
  const { api, notify } = useApp();
  const editing = props.monitor;
  const [type, setType] = useState<MonitorType>((editing?.type as MonitorType) ?? "http");
  const [name, setName] = useState(editing?.name ?? "");
  const [interval, setIntervalText] = useState(String(editing?.interval_seconds ?? 60));
  const [timeout, setTimeoutText] = useState(String(editing?.timeout_seconds ?? 30));
  const [retries, setRetries] = useState(String(editing?.retries ?? 0));
  const [parentId, setParentId] = useState(
    ((editing as { parent_id?: string | null } | undefined)?.parent_id ?? "") as string,
  );
  const [draft, setDraft] = useState<Draft>(() =>
    MONITOR_TYPES[type].fromMonitor((editing ?? {}) as Record<string, unknown>),
  );
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useFocusFirstInvalid(errors);
  const form = MONITOR_TYPES[type];
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
      return;
    }
    const body: Record<string, unknown> = {
      name,
      interval_seconds: whole(interval),
      retries: whole(retries),
      parent_id: parentId === "" ? null : parentId,
      ...built.body,
    };
    if (type !== "push") body.timeout_seconds = whole(timeout);
    setBusy(true);
    try {
      const saved = editing
        ? await updateMonitor(api, editing.id, body)
        : await createMonitor(api, { type, ...body });
      setErrors({});
      setMessage(undefined);
      notify(`Monitor “${saved.name}” ${editing ? "saved" : "created"}`);
      props.onSaved(saved);
    } catch (e) {
      const failure = formFailure(e);
      setErrors(failure.errors);
      setMessage(Object.keys(failure.errors).length > 0 ? undefined : failure.message);
    } finally {
      setBusy(false);
    }
  }

  const label = editing ? "Save monitor" : "Create monitor";
  return (
    <form class="card monitor-form" onSubmit={submit} noValidate aria-label={label}>
      <Field
        label="Monitor name"
        name="name"
        value={name}
        onInput={(v) => {
          setName(v);
          clear("name");
        }}
        errors={errors.name}
        required
      />
      {editing ? null : (
        <Select
          label="Monitor type"
          name="type"
          value={type}
          options={TYPE_OPTIONS}
          errors={errors.type}
          onChange={(next) => {
            setType(next as MonitorType);
            setDraft(MONITOR_TYPES[next as MonitorType].fromMonitor({}));
            setErrors({});
          }}
        />
      )}
      <form.Fields
        draft={draft}
        errors={errors}
        set={(key, value) => {
          setDraft((d) => ({ ...d, [key]: value }));
          clear(key);
        }}
      />
      <div class="field-row">
        <Field
          label={type === "push" ? "Expect a push every (seconds)" : "Check every (seconds)"}
          name="interval_seconds"
          inputMode="numeric"
          value={interval}
          onInput={(v) => {
            setIntervalText(v);
            clear("interval_seconds");
          }}
          errors={errors.interval_seconds}
          required
          hint="At least 10."
        />
        {type === "push" ? null : (
          <Field
            label="Timeout (seconds)"
            name="timeout_seconds"
            inputMode="numeric"
            value={timeout}
            onInput={(v) => {
              setTimeoutText(v);
              clear("timeout_seconds");
            }}
            errors={errors.timeout_seconds}
            required
            hint="1–300."
          />
        )}
        <Field
          label="Retries before down"
          name="retries"
          inputMode="numeric"
          value={retries}
          onInput={(v) => {
            setRetries(v);
            clear("retries");
          }}
          errors={errors.retries}
          required
        />
      </div>
      <ParentSelect
        monitorId={editing?.id}
        value={parentId}
        onChange={(next) => {
          setParentId(next);
          clear("parent_id");
        }}
        errors={errors.parent_id}
      />
      <FormErrors errors={errors} claimed={[...COMMON, ...form.claimed]} message={message} />
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
