import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { Link } from "../kit/link.tsx";
import { Loaded } from "../kit/loaded.tsx";
import { Time } from "../kit/time.tsx";
import { errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import { useData } from "../lib/use-load.ts";
import { windowState } from "./maintenance-form.ts";
import { MaintenanceForm } from "./maintenance-form.tsx";
import {
  deleteWindow,
  listMonitorChoices,
  listWindows,
  type MaintenanceWindow,
  type MonitorChoice,
} from "./status-pages.api.ts";

const STATE_WORDS = { active: "● Under way", upcoming: "◷ Upcoming", ended: "✓ Over" };

/** Maintenance windows with their state in words and next occurrences; admins plan and edit. */
export function MaintenancePage() {
  const { api, org } = useApp();
  const loaded = useData("maintenance", async (signal) => {
    const [windows, monitors] = await Promise.all([
      listWindows(api, signal),
      listMonitorChoices(api, signal),
    ]);
    return { windows, monitors };
  });
  const [editing, setEditing] = useState<string | null>(null);
  const writer = canWrite(org);
  const done = () => {
    setEditing(null);
    loaded.refetch();
  };
  return (
    <main id="main" class="page">
      <p class="crumbs">
        <Link href="/status-pages">Status pages</Link> /
      </p>
      <div class="page-head">
        <h1>Maintenance windows</h1>
        {writer ? (
          <button
            type="button"
            class="button primary"
            aria-expanded={editing === "new"}
            onClick={() => setEditing(editing === "new" ? null : "new")}
          >
            New window
          </button>
        ) : null}
      </div>
      <p class="muted">
        Inside a window its monitors read “maintenance”, send no alerts and keep their uptime.
      </p>
      <Loaded data={loaded} what="maintenance windows">
        {({ windows, monitors }) => (
          <>
            {editing === "new" ? (
              <MaintenanceForm
                monitors={monitors}
                onSaved={done}
                onCancel={() => setEditing(null)}
              />
            ) : null}
            {windows.length === 0 ? (
              <p class="empty">No maintenance windows yet.</p>
            ) : (
              <ul class="maintenance-list" aria-label="Maintenance windows">
                {windows.map((w) => (
                  <WindowItem
                    key={`${w.id}:${w.updated_at}`}
                    window={w}
                    monitors={monitors}
                    writer={writer}
                    editing={editing === w.id}
                    onEdit={(on) => setEditing(on ? w.id : null)}
                    onChanged={done}
                  />
                ))}
              </ul>
            )}
          </>
        )}
      </Loaded>
    </main>
  );
}

function WindowItem(props: {
  window: MaintenanceWindow;
  monitors: MonitorChoice[];
  writer: boolean;
  editing: boolean;
  onEdit: (on: boolean) => void;
  onChanged: () => void;
}) {
  const { api, notify } = useApp();
  const w = props.window;
  const [deleting, setDeleting] = useState(false);
  const [failed, setFailed] = useState("");
  const names = w.monitor_ids.map((id) => props.monitors.find((m) => m.id === id)?.name ?? id);
  const headingId = `window-${w.id}`;
  return (
    <li class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{w.title}</h2>
      <p>
        <strong>{STATE_WORDS[windowState(w)]}</strong> ·{" "}
        {w.cron ? `repeats “${w.cron}” for ${w.duration_minutes} min (${w.timezone})` : "once"} ·{" "}
        {names.length === 0 ? "no monitors" : names.join(", ")}
      </p>
      {w.description ? <p>{w.description}</p> : null}
      {w.next_occurrences.length > 0 ? (
        <>
          <p class="muted">Next:</p>
          <ol class="maintenance-occurrences" aria-label={`Next occurrences of ${w.title}`}>
            {w.next_occurrences.map((o) => (
              <li key={o.starts_at}>
                {new Date(o.starts_at).toLocaleString()} → {new Date(o.ends_at).toLocaleString()} (
                <Time iso={o.starts_at} />)
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {props.writer ? (
        <div class="actions">
          <button
            type="button"
            class="button"
            aria-expanded={props.editing}
            aria-label={`Edit ${w.title}`}
            onClick={() => props.onEdit(!props.editing)}
          >
            Edit
          </button>
          <button
            type="button"
            class="button danger"
            aria-label={`Delete ${w.title}`}
            onClick={() => setDeleting(true)}
          >
            Delete
          </button>
        </div>
      ) : null}
      {failed ? (
        <p class="error-text" role="alert">
          {failed}
        </p>
      ) : null}
      {props.editing ? (
        <MaintenanceForm
          window={w}
          monitors={props.monitors}
          onSaved={props.onChanged}
          onCancel={() => props.onEdit(false)}
        />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete maintenance window “${w.title}”?`}
          confirmLabel="Delete window"
          onClose={() => setDeleting(false)}
          onConfirm={async () => {
            try {
              await deleteWindow(api, w.id);
              notify(`Maintenance “${w.title}” deleted`);
              props.onChanged();
            } catch (e) {
              setFailed(errorText(e));
            }
          }}
        >
          <p>Its monitors leave maintenance at their next check if it is under way.</p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}
