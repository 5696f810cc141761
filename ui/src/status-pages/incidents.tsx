import { useState } from "preact/hooks";
import { Checkbox, Field, FormErrors, Select } from "../kit/field.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { useData } from "../lib/use-load.ts";
import { IncidentItem } from "./incident-item.tsx";
import { IMPACTS, INCIDENT_STATUSES } from "./incident-words.ts";
import {
  listIncidents,
  listMonitorChoices,
  openIncident,
  type StatusPage,
} from "./status-pages.api.ts";

/** A page's incidents, newest first, each with its timeline; admins open, update and delete. */
export function Incidents(props: { page: StatusPage; writer: boolean; onChanged: () => void }) {
  const { api } = useApp();
  const { page } = props;
  const incidents = useData(`incidents:${page.id}`, (signal) =>
    listIncidents(api, page.id, signal),
  );
  const choices = useData("incident-monitors", (signal) => listMonitorChoices(api, signal));
  const [opening, setOpening] = useState(false);
  // A monitor shown under its own name has no display name: its name comes from the monitors.
  const monitorName = (id: string) =>
    page.monitors.find((m) => m.monitor_id === id)?.display_name ??
    choices.data?.find((m) => m.id === id)?.name ??
    "a monitor";
  const changed = () => {
    incidents.refetch();
    props.onChanged();
  };
  return (
    <section class="card" aria-labelledby="incidents-title">
      <div class="page-head">
        <h2 id="incidents-title">Incidents</h2>
        {props.writer ? (
          <button
            type="button"
            class="button"
            aria-expanded={opening}
            onClick={() => setOpening(!opening)}
          >
            Open incident
          </button>
        ) : null}
      </div>
      {opening ? (
        <OpenIncidentForm
          page={page}
          monitorName={monitorName}
          onCancel={() => setOpening(false)}
          onOpened={() => {
            setOpening(false);
            changed();
          }}
        />
      ) : null}
      <Loaded data={incidents} what="incidents">
        {(list) =>
          list.length === 0 ? (
            <p class="muted">No incidents yet.</p>
          ) : (
            list.map((incident) => (
              <IncidentItem
                key={`${incident.id}:${incident.updated_at}`}
                page={page}
                incident={incident}
                monitorName={monitorName}
                writer={props.writer}
                onChanged={changed}
              />
            ))
          )
        }
      </Loaded>
    </section>
  );
}

function OpenIncidentForm(props: {
  page: StatusPage;
  monitorName: (id: string) => string;
  onOpened: () => void;
  onCancel: () => void;
}) {
  const { api, notify } = useApp();
  const [title, setTitle] = useState("");
  const [impact, setImpact] = useState("minor");
  const [status, setStatus] = useState("investigating");
  const [message, setMessage] = useState("");
  const [monitorIds, setMonitorIds] = useState<string[]>([]);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [summary, setSummary] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const body = { title, impact, status, message, monitor_ids: monitorIds };
      const opened = await openIncident(api, props.page.id, body);
      notify(`Incident “${opened.title}” opened`);
      props.onOpened();
    } catch (e) {
      const failure = formFailure(e);
      setErrors(failure.errors);
      setSummary(Object.keys(failure.errors).length > 0 ? "" : failure.message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="incident-form" onSubmit={submit} noValidate aria-label="Open incident">
      <Field
        label="Incident title"
        name="title"
        value={title}
        onInput={setTitle}
        errors={errors.title}
        required
      />
      <div class="field-row">
        <Select
          label="Impact"
          name="impact"
          value={impact}
          options={IMPACTS}
          onChange={setImpact}
        />
        <Select
          label="Status"
          name="status"
          value={status}
          options={INCIDENT_STATUSES}
          onChange={setStatus}
        />
      </div>
      <Field
        label="Message"
        name="message"
        value={message}
        onInput={setMessage}
        errors={errors.message}
        multiline
        required
      />
      {props.page.monitors.length > 0 ? (
        <fieldset>
          <legend>Affected monitors</legend>
          {props.page.monitors.map((m) => (
            <Checkbox
              key={m.monitor_id}
              label={props.monitorName(m.monitor_id)}
              name="monitor_ids"
              checked={monitorIds.includes(m.monitor_id)}
              onChange={(on) =>
                setMonitorIds((ids) =>
                  on ? [...ids, m.monitor_id] : ids.filter((id) => id !== m.monitor_id),
                )
              }
            />
          ))}
        </fieldset>
      ) : null}
      <FormErrors errors={errors} claimed={["title", "message"]} message={summary || undefined} />
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : "Open incident"}
        </button>
        <button type="button" class="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
