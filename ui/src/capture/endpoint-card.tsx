import { useEffect, useRef, useState } from "preact/hooks";
import { StatusBadge } from "../kit/badges.tsx";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { CopyButton } from "../kit/copy-button.tsx";
import { Link } from "../kit/link.tsx";
import { Notice } from "../kit/notice.tsx";
import { Time } from "../kit/time.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import type { Endpoint } from "../lib/types.ts";
import { patchEndpoint, renameEndpoint } from "./endpoints.api.ts";

interface Props {
  endpoint: Endpoint;
  now: number;
  highlight: boolean;
  onChanged: (endpoint: Endpoint) => void;
  onDeleted: (id: string) => void;
}

/** One endpoint in the list: what it is, where to send webhooks, and what can be done with it. */
export function EndpointCard({ endpoint, now, highlight, onChanged, onDeleted }: Props) {
  const { api, org, notify } = useApp();
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState("");
  const writable = canWrite(org);
  const count = endpoint.request_count ?? 0;

  async function toggle() {
    setError("");
    const status = endpoint.status === "active" ? "paused" : "active";
    try {
      onChanged(await patchEndpoint(api, endpoint, { status }));
      notify(
        status === "paused"
          ? `“${endpoint.name}” paused: its URL answers 404.`
          : `“${endpoint.name}” resumed.`,
      );
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function remove() {
    try {
      await api.delete(`/api/v1/endpoints/${endpoint.id}`);
      onDeleted(endpoint.id);
      notify(`Endpoint “${endpoint.name}” deleted.`);
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <li class={`card endpoint-card${highlight ? " highlight" : ""}`} data-endpoint-id={endpoint.id}>
      <div class="endpoint-head">
        {renaming ? (
          <RenameForm
            endpoint={endpoint}
            onDone={(updated) => {
              setRenaming(false);
              if (updated) onChanged(updated);
            }}
          />
        ) : (
          <h3 class="endpoint-name">
            <Link href={`/endpoints/${endpoint.id}`}>{endpoint.name}</Link>
          </h3>
        )}
        <StatusBadge status={endpoint.status} />
      </div>
      <div class="capture-url">
        <span class="label">Capture URL</span>
        <code>{endpoint.webhook_url}</code>
        <CopyButton text={endpoint.webhook_url} label="Copy URL" />
      </div>
      <dl class="facts">
        <div>
          <dt>Requests</dt>
          <dd class="request-count">{count.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Last request</dt>
          <dd>
            <Time iso={endpoint.last_request_at} now={now} />
          </dd>
        </div>
        <div>
          <dt>Slug</dt>
          <dd>
            <code>{endpoint.slug}</code>
          </dd>
        </div>
      </dl>
      <RefusedNote endpoint={endpoint} now={now} />
      {endpoint.status === "paused" ? (
        <p class="muted small">
          Paused: the capture URL answers 404 and nothing is stored. Stored requests are kept.
        </p>
      ) : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <div class="actions">
        <Link href={`/endpoints/${endpoint.id}`} class="button primary small">
          Open inspector
        </Link>
        {writable ? (
          <>
            <button type="button" class="button small" onClick={toggle}>
              {endpoint.status === "active" ? "Pause" : "Resume"}
            </button>
            <button
              type="button"
              class="button small"
              onClick={() => setRenaming(true)}
              disabled={renaming}
            >
              Rename
            </button>
            <Link href={`/endpoints/${endpoint.id}/settings`} class="button small">
              Settings
            </Link>
            <button type="button" class="button small danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          </>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmDialog
          title={`Delete “${endpoint.name}”?`}
          confirmLabel="Delete endpoint"
          onConfirm={remove}
          onClose={() => setConfirming(false)}
        >
          <p>
            Its capture URL stops working at once and its {count.toLocaleString()} stored request
            {count === 1 ? "" : "s"} are deleted. This cannot be undone.
          </p>
        </ConfirmDialog>
      ) : null}
    </li>
  );
}

function RenameForm(props: { endpoint: Endpoint; onDone: (updated?: Endpoint) => void }) {
  const { api } = useApp();
  const [name, setName] = useState(props.endpoint.name);
  const [error, setError] = useState("");
  const input = useRef<HTMLInputElement>(null);
  // The field the user asked for gets the focus once, when the form opens.
  useEffect(() => input.current?.select(), []);
  async function submit(event: Event) {
    event.preventDefault();
    try {
      props.onDone(await renameEndpoint(api, props.endpoint, name));
    } catch (e) {
      setError(e instanceof ApiError && e.fields.name ? e.fields.name.join(" ") : errorText(e));
    }
  }
  return (
    <form class="rename-form" onSubmit={submit}>
      <label>
        <span class="visually-hidden">New name for {props.endpoint.name}</span>
        <input
          value={name}
          onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          aria-invalid={error ? "true" : undefined}
          ref={input}
          onKeyDown={(e) => e.key === "Escape" && props.onDone()}
        />
      </label>
      <button type="submit" class="button small primary">
        Save
      </button>
      <button type="button" class="button small" onClick={() => props.onDone()}>
        Cancel
      </button>
      {error ? (
        <p class="error-text" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}

/** What senders lost: captures refused for the plan's rate limit or for size, if any. */
function RefusedNote({ endpoint, now }: { endpoint: Endpoint; now: number }) {
  const refused = endpoint.refused;
  if (!refused || refused.rate_limited + refused.payload_too_large === 0) return null;
  const parts = [
    refused.rate_limited > 0
      ? `${refused.rate_limited.toLocaleString()} over the plan's rate limit (429)`
      : "",
    refused.payload_too_large > 0
      ? `${refused.payload_too_large.toLocaleString()} too large (413)`
      : "",
  ].filter(Boolean);
  return (
    <div class="refused-note">
      <Notice kind="warning">
        Refused: {parts.join(", ")}; last <Time iso={refused.last_refused_at} now={now} />.
      </Notice>
    </div>
  );
}
