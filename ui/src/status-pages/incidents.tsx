import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Checkbox, Field, FormErrors, Select } from "../kit/field.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Time } from "../kit/time.tsx";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { useData } from "../lib/use-load.ts";
import {
  IMPACTS,
  INCIDENT_STATUSES,
  impactLabel,
  incidentStatusLabel,
  nextStatus,
} from "./incident-words.ts";
import {
  deleteIncident,
  type Incident,
  listIncidents,
  openIncident,
  postUpdate,
  type StatusPage,
} from "./status-pages.api.ts";

/** A page's incidents, newest first, each with its timeline; admins open, update and delete. */
export function Incidents(props: { page: StatusPage; writer: boolean; onChanged: () => void }) {
  const { api } = useApp();
  const { page } = props;
  const incidents = useData(`incidents:${page.id}`, (signal) =>
    listIncidents(api, page.id, signal),
  );
  const [opening, setOpening] = useState(false);
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

function OpenIncidentForm(props: { page: StatusPage; onOpened: () => void; onCancel: () => void }) {
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
              label={m.display_name ?? m.monitor_id}
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

function IncidentItem(props: {
  page: StatusPage;
  incident: Incident;
  writer: boolean;
  onChanged: () => void;
}) {
  const { api, notify } = useApp();
  const { incident } = props;
  const [status, setStatus] = useState(nextStatus(incident.status));
  const [message, setMessage] = useState("");
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [failed, setFailed] = useState("");

  async function update(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      await postUpdate(api, props.page.id, incident.id, { status, message });
      notify(`Incident “${incident.title}”: ${incidentStatusLabel(status)}`);
      setMessage("");
      setErrors({});
      props.onChanged();
    } catch (e) {
      const failure = formFailure(e);
      setErrors(
        Object.keys(failure.errors).length > 0 ? failure.errors : { message: [failure.message] },
      );
    } finally {
      setBusy(false);
    }
  }

  const headingId = `incident-${incident.id}`;
  return (
    <article class="incident" aria-labelledby={headingId}>
      <h3 id={headingId}>{incident.title}</h3>
      <p>
        <strong>{incidentStatusLabel(incident.status)}</strong> · {impactLabel(incident.impact)} ·
        opened <Time iso={incident.created_at} />
        {incident.resolved_at ? (
          <>
            {" "}
            · resolved <Time iso={incident.resolved_at} />
          </>
        ) : null}
      </p>
      <ol class="timeline" aria-label={`Timeline of ${incident.title}`}>
        {[...incident.updates].reverse().map((u) => (
          <li key={u.id}>
            <strong>{incidentStatusLabel(u.status)}</strong> · <Time iso={u.created_at} />
            <p>{u.message}</p>
          </li>
        ))}
      </ol>
      {props.writer ? (
        <form
          class="incident-form"
          onSubmit={update}
          noValidate
          aria-label={`Update ${incident.title}`}
        >
          <div class="field-row">
            <Select
              label="New status"
              name="status"
              value={status}
              options={INCIDENT_STATUSES}
              errors={errors.status}
              onChange={setStatus}
            />
            <Field
              label="Update message"
              name="message"
              value={message}
              onInput={(v) => {
                setMessage(v);
                setErrors({});
              }}
              errors={errors.message}
              required
            />
          </div>
          <div class="actions">
            <button type="submit" class="button" disabled={busy}>
              {busy ? "Saving…" : "Post update"}
            </button>
            <button type="button" class="button danger" onClick={() => setDeleting(true)}>
              Delete incident
            </button>
          </div>
          {failed ? (
            <p class="error-text" role="alert">
              {failed}
            </p>
          ) : null}
        </form>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete incident “${incident.title}”?`}
          confirmLabel="Delete incident"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            try {
              await deleteIncident(api, props.page.id, incident.id);
              notify(`Incident “${incident.title}” deleted`);
              props.onChanged();
            } catch (e) {
              setFailed(errorText(e));
            }
          }}
        >
          <p>Its updates go with it, and the public page no longer shows it.</p>
        </ConfirmDialog>
      ) : null}
    </article>
  );
}
