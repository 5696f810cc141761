import { useState } from "preact/hooks";
import { Field } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Notice } from "../kit/notice.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { canWrite, useApp } from "../lib/context.ts";
import type { CustomResponse, Endpoint } from "../lib/types.ts";
import { useData } from "../lib/use-load.ts";
import { patchEndpoint, renameEndpoint } from "./endpoints.api.ts";

/** Per-endpoint settings: name, forward URL and the custom response given to senders. */
export function EndpointSettingsPage({ endpointId }: { endpointId: string }) {
  const { api, org } = useApp();
  const endpoint = useData(`endpoint:${endpointId}`, (signal) =>
    api.get<{ data: Endpoint }>(`/api/v1/endpoints/${endpointId}`, signal).then((r) => r.data),
  );
  if (endpoint.state === "loading")
    return (
      <main id="main" class="page">
        <p class="muted">Loading…</p>
      </main>
    );
  if (endpoint.state === "failed") {
    return (
      <main id="main" class="page">
        <Notice kind="error">{endpoint.error?.message}</Notice>
        <Link href="/endpoints">Back to endpoints</Link>
      </main>
    );
  }
  // Past the two checks above, the endpoint is loaded.
  const ep = endpoint.data as Endpoint;
  return (
    <main id="main" class="page narrow">
      <p class="crumbs">
        <Link href="/endpoints">Endpoints</Link> /{" "}
        <Link href={`/endpoints/${ep.id}`}>{ep.name}</Link> /
      </p>
      <h1>Endpoint settings</h1>
      <p>
        <Link href={`/endpoints/${ep.id}/actions`}>Actions</Link>: what runs on every capture
        (conditions, HTTP requests, scripts, variables, the answer).
      </p>
      {canWrite(org) ? (
        <SettingsForm endpoint={ep} onSaved={endpoint.set} key={ep.updated_at} />
      ) : (
        <Notice kind="info">Your role is member: settings are read-only.</Notice>
      )}
    </main>
  );
}

const headerLines = (headers: Record<string, string> | undefined) =>
  Object.entries(headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");

/** "Name: value" lines → headers; returns the first bad line's number instead when one is malformed. */
export function parseHeaderLines(text: string): Record<string, string> | number {
  const headers: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? "").trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon < 1) return i + 1;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function SettingsForm({
  endpoint,
  onSaved,
}: {
  endpoint: Endpoint;
  onSaved: (e: Endpoint) => void;
}) {
  const { api, notify } = useApp();
  const [name, setName] = useState(endpoint.name);
  const [forwardUrl, setForwardUrl] = useState(endpoint.forward_url ?? "");
  const [custom, setCustom] = useState(Boolean(endpoint.response));
  const [status, setStatus] = useState(String(endpoint.response?.status ?? 200));
  const [headers, setHeaders] = useState(headerLines(endpoint.response?.headers));
  const [body, setBody] = useState(endpoint.response?.body ?? "");
  const [delay, setDelay] = useState(String(endpoint.response?.delay_ms ?? 0));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);

  function buildResponse(): CustomResponse | null | string {
    if (!custom) return null;
    const parsed = parseHeaderLines(headers);
    if (typeof parsed === "number") return `Line ${parsed} is not “Name: value”.`;
    // Numbers as numbers; anything else as typed, so the API's message names the field.
    const number = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text) : text);
    return {
      status: number(status) as number,
      headers: parsed,
      body,
      delay_ms: number(delay || "0") as number,
    };
  }

  async function save(event: Event) {
    event.preventDefault();
    setErrors({});
    setMessage("");
    const response = buildResponse();
    if (typeof response === "string") {
      setErrors({ "response.headers": [response] });
      return;
    }
    setBusy(true);
    try {
      let next = endpoint;
      if (name !== endpoint.name) next = await renameEndpoint(api, next, name);
      next = await patchEndpoint(api, next, { forward_url: forwardUrl.trim() || null, response });
      onSaved(next);
      notify("Settings saved.");
    } catch (e) {
      if (e instanceof ApiError) setErrors(e.fields);
      setMessage(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (key: string) => errors[key] ?? errors[key.replace("response.", "")];
  return (
    <form class="card settings-form" onSubmit={save} noValidate>
      {message ? <Notice kind="error">{message}</Notice> : null}
      <Field
        label="Name"
        name="name"
        required
        value={name}
        onInput={setName}
        errors={errors.name}
      />
      <Field
        label="Forward URL"
        name="forward_url"
        type="url"
        inputMode="url"
        value={forwardUrl}
        onInput={setForwardUrl}
        errors={errors.forward_url}
        hint="Every captured request is also sent here, byte for byte. Leave empty to only capture."
        placeholder="http://localhost:3000/webhooks"
      />
      <fieldset>
        <legend>Response to senders</legend>
        <label class="check">
          <input
            type="checkbox"
            checked={custom}
            onChange={(e) => setCustom((e.currentTarget as HTMLInputElement).checked)}
          />
          Answer with a custom response (otherwise 200 with a JSON receipt)
        </label>
        {custom ? (
          <>
            <Field
              label="Status code"
              name="response_status"
              inputMode="numeric"
              required
              value={status}
              onInput={setStatus}
              errors={fieldError("response.status")}
            />
            <Field
              label="Headers"
              name="response_headers"
              multiline
              value={headers}
              onInput={setHeaders}
              errors={fieldError("response.headers")}
              hint="One “Name: value” per line."
            />
            <Field
              label="Body"
              name="response_body"
              multiline
              value={body}
              onInput={setBody}
              errors={fieldError("response.body")}
            />
            <Field
              label="Delay (ms)"
              name="response_delay"
              inputMode="numeric"
              value={delay}
              onInput={setDelay}
              errors={fieldError("response.delay_ms")}
              hint="Wait this long before answering, up to 30000 ms: test your sender's timeouts."
            />
          </>
        ) : null}
      </fieldset>
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : "Save settings"}
        </button>
        <Link class="button" href={`/endpoints/${endpoint.id}`}>
          Back to the inspector
        </Link>
      </div>
    </form>
  );
}
