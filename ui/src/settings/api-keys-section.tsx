import { useState } from "preact/hooks";
import { ConfirmDialog } from "../kit/confirm-dialog.tsx";
import { CopyButton } from "../kit/copy-button.tsx";
import { Field } from "../kit/field.tsx";
import { Notice } from "../kit/notice.tsx";
import { Time } from "../kit/time.tsx";
import { errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import { PLAN_LABEL } from "../lib/plans.ts";
import type { ApiKey } from "../lib/types.ts";
import { useData } from "../lib/use-load.ts";

/** API keys: create (shown once), list, revoke. JWT only, owners only, Team and Enterprise plans. */
export function ApiKeysSection() {
  const { api, org, notify } = useApp();
  const base = `/api/v1/organizations/${org.id}/api-keys`;
  const allowed = org.limits.api_keys;
  const keys = useData(`api-keys:${org.id}`, (signal) =>
    allowed ? api.get<ApiKey[]>(base, signal) : Promise.resolve([]),
  );
  const [name, setName] = useState("");
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [error, setError] = useState("");
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const list = keys.data ?? [];

  async function create(event: Event) {
    event.preventDefault();
    setError("");
    try {
      const key = await api.post<ApiKey>(base, { name });
      setCreated(key);
      setName("");
      keys.set([{ ...key, key: undefined }, ...list]);
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function revoke(key: ApiKey) {
    try {
      await api.delete(`${base}/${key.id}`);
      keys.set(
        list.map((k) => (k.id === key.id ? { ...k, revoked_at: new Date().toISOString() } : k)),
      );
      notify(`API key “${key.name}” revoked.`);
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <section class="card" aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p class="muted">
        Keys let scripts and <code>weir tail</code> call the API as this organization. Send one as{" "}
        <code>Authorization: Bearer svc_…</code> or <code>X-API-Key</code>.
      </p>
      {!allowed ? (
        <Notice kind="info">
          API keys are not on the {PLAN_LABEL[org.plan]} plan; they come with Team and Enterprise.
        </Notice>
      ) : (
        <>
          {created?.key ? (
            <div class="new-key" role="status">
              <Notice kind="warning">
                <strong>Copy this key now.</strong> It is shown only once; Weir keeps only a hash of
                it. If you lose it, create a new key and revoke this one.
              </Notice>
              <div class="key-value">
                <code data-testid="new-api-key">{created.key}</code>
                <CopyButton text={created.key} label="Copy key" />
              </div>
              <button type="button" class="button small" onClick={() => setCreated(null)}>
                I have saved it
              </button>
            </div>
          ) : null}
          {error ? <Notice kind="error">{error}</Notice> : null}
          <form class="form-row two" onSubmit={create} noValidate>
            <Field
              label="Key name"
              name="key_name"
              required
              value={name}
              onInput={setName}
              placeholder="CI deploy hook"
            />
            <div class="form-submit">
              <button type="submit" class="button primary" disabled={!name.trim()}>
                Create key
              </button>
            </div>
          </form>
          {keys.state === "failed" ? <Notice kind="error">{keys.error?.message}</Notice> : null}
          {list.length === 0 && keys.state === "ready" ? <p class="muted">No keys yet.</p> : null}
          {list.length > 0 ? (
            <div class="table-scroll">
              <table class="list-table">
                <caption class="visually-hidden">API keys</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">State</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((key) => (
                    <tr key={key.id}>
                      <td>{key.name}</td>
                      <td>
                        <Time iso={key.created_at} />
                      </td>
                      <td>
                        <Time iso={key.last_used_at} />
                      </td>
                      <td>
                        {key.revoked_at ? (
                          <span class="badge badge-paused">✖ Revoked</span>
                        ) : (
                          <span class="badge badge-active">● Active</span>
                        )}
                      </td>
                      <td>
                        {key.revoked_at ? null : (
                          <button
                            type="button"
                            class="button small danger"
                            onClick={() => setRevoking(key)}
                            aria-label={`Revoke ${key.name}`}
                          >
                            Revoke
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      )}
      {revoking ? (
        <ConfirmDialog
          title={`Revoke “${revoking.name}”?`}
          confirmLabel="Revoke key"
          onConfirm={() => revoke(revoking)}
          onClose={() => setRevoking(null)}
        >
          <p>Anything using this key gets 401 from now on. This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
