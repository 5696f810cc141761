import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Field, Select } from "../kit/field.tsx";
import { Time } from "../kit/time.tsx";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import {
  INCIDENT_STATUSES,
  impactLabel,
  incidentStatusLabel,
  nextStatus,
} from "./incident-words.ts";
import { deleteIncident, type Incident, postUpdate, type StatusPage } from "./status-pages.api.ts";

/** One incident: its state, timeline (newest first), the next update and delete. */
export function IncidentItem(props: {
  page: StatusPage;
  incident: Incident;
  monitorName: (id: string) => string;
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
  const affected = incident.monitor_ids.map(props.monitorName);
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
      {affected.length > 0 ? <p class="muted">Affects {affected.join(", ")}</p> : null}
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
