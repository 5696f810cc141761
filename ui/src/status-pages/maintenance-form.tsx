import { useState } from "preact/hooks";
import { Checkbox, Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { timeZones, type WindowDraft, windowBody, windowDraft } from "./maintenance-form.ts";
import {
  createWindow,
  type MaintenanceWindow,
  type MonitorChoice,
  updateWindow,
} from "./status-pages.api.ts";

const CLAIMED = [
  "title",
  "description",
  "starts_at",
  "ends_at",
  "cron",
  "duration_minutes",
  "timezone",
  "monitor_ids",
];

/** Plans a one-off or recurring maintenance window over some monitors, or changes one. */
export function MaintenanceForm(props: {
  window?: MaintenanceWindow;
  monitors: MonitorChoice[];
  onSaved: (window: MaintenanceWindow) => void;
  onCancel: () => void;
}) {
  const { api, notify } = useApp();
  const editing = props.window;
  const [draft, setDraft] = useState<WindowDraft>(() => windowDraft(editing));
  const [zones] = useState(() => timeZones(draft.timezone));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  useFocusFirstInvalid(errors);

  const set =
    <K extends keyof WindowDraft>(key: K) =>
    (value: WindowDraft[K]) => {
      setDraft((d) => ({ ...d, [key]: value }));
      if (!errors[key]) return;
      const { [key]: _, ...rest } = errors;
      setErrors(rest);
    };

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const body = windowBody(draft);
      const saved = editing
        ? await updateWindow(api, editing.id, body)
        : await createWindow(api, body);
      notify(`Maintenance “${saved.title}” ${editing ? "saved" : "planned"}`);
      props.onSaved(saved);
    } catch (e) {
      const failure = formFailure(e);
      setErrors(failure.errors);
      setMessage(Object.keys(failure.errors).length > 0 ? "" : failure.message);
    } finally {
      setBusy(false);
    }
  }

  const label = editing ? "Save window" : "Plan window";
  return (
    <form class="card" onSubmit={submit} noValidate aria-label={label}>
      <Field
        label="Window title"
        name="title"
        value={draft.title}
        onInput={set("title")}
        errors={errors.title}
        required
      />
      <Field
        label="Description"
        name="description"
        value={draft.description}
        onInput={set("description")}
        errors={errors.description}
      />
      <Select
        label="Repeats"
        name="recurring"
        value={draft.recurring ? "yes" : "no"}
        options={[
          { value: "no", label: "Once" },
          { value: "yes", label: "On a schedule (cron)" },
        ]}
        onChange={(v) => set("recurring")(v === "yes")}
      />
      {draft.recurring ? (
        <div class="field-row">
          <Field
            label="Cron"
            name="cron"
            value={draft.cron}
            onInput={set("cron")}
            errors={errors.cron}
            required
            hint="Minute hour day month weekday, e.g. 0 2 * * 0 for Sundays at 02:00."
          />
          <Field
            label="Duration (minutes)"
            name="duration_minutes"
            inputMode="numeric"
            value={draft.duration_minutes}
            onInput={set("duration_minutes")}
            errors={errors.duration_minutes}
            required
            hint="1–10080."
          />
          <Select
            label="Time zone"
            name="timezone"
            value={draft.timezone}
            options={zones.map((z) => ({ value: z, label: z }))}
            errors={errors.timezone}
            onChange={set("timezone")}
          />
        </div>
      ) : (
        <div class="field-row">
          <Field
            label="Starts (local time)"
            name="starts_at"
            type="datetime-local"
            value={draft.starts_at}
            onInput={set("starts_at")}
            errors={errors.starts_at}
            required
          />
          <Field
            label="Ends (local time)"
            name="ends_at"
            type="datetime-local"
            value={draft.ends_at}
            onInput={set("ends_at")}
            errors={errors.ends_at}
            required
          />
        </div>
      )}
      <fieldset class="monitor-picker">
        <legend>Monitors</legend>
        {props.monitors.length === 0 ? <p class="muted">No monitors yet.</p> : null}
        {props.monitors.map((m) => (
          <Checkbox
            key={m.id}
            label={m.name}
            name="monitor_ids"
            checked={draft.monitor_ids.includes(m.id)}
            onChange={(on) =>
              set("monitor_ids")(
                on ? [...draft.monitor_ids, m.id] : draft.monitor_ids.filter((id) => id !== m.id),
              )
            }
          />
        ))}
        {errors.monitor_ids ? <p class="error-text">{errors.monitor_ids.join(" ")}</p> : null}
      </fieldset>
      <FormErrors errors={errors} claimed={CLAIMED} message={message || undefined} />
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : label}
        </button>
        <button type="button" class="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
