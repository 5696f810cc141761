import { useState } from "preact/hooks";
import { Field } from "../kit/field.tsx";
import { Notice } from "../kit/notice.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";
import type { Endpoint } from "../lib/types.ts";

/** Name and optional slug; the API's answers (422 fields, 409 slug taken, 403 limit) shown inline. */
export function CreateEndpointForm(props: { onCreated: (endpoint: Endpoint) => void }) {
  const { api, notify } = useApp();
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState("");

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setErrors({});
    setMessage("");
    try {
      const body = { debug_endpoint: slug.trim() ? { name, slug: slug.trim() } : { name } };
      const created = await api.post<{ data: Endpoint }>("/api/v1/endpoints", body);
      props.onCreated(created.data);
      notify(`Endpoint “${created.data.name}” created.`);
      setName("");
      setSlug("");
    } catch (error) {
      if (error instanceof ApiError && error.code === "slug_taken")
        setErrors({ slug: [error.message] });
      else if (error instanceof ApiError && Object.keys(error.fields).length > 0)
        setErrors(error.fields);
      else setMessage(errorText(error));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form
      class="card create-form"
      onSubmit={submit}
      noValidate
      aria-labelledby="create-endpoint-title"
    >
      <h2 id="create-endpoint-title">New endpoint</h2>
      {message ? <Notice kind="error">{message}</Notice> : null}
      <div class="form-row">
        <Field
          label="Name"
          name="name"
          required
          value={name}
          onInput={setName}
          errors={errors.name}
          placeholder="Stripe test events"
        />
        <Field
          label="Slug"
          name="slug"
          value={slug}
          onInput={setSlug}
          errors={errors.slug}
          hint="Lowercase letters, digits and hyphens, 3–63 characters. Made from the name when empty. Cannot change later."
          placeholder="stripe-test"
        />
        <div class="form-submit">
          <button type="submit" class="button primary" disabled={busy}>
            {busy ? "Creating…" : "Create endpoint"}
          </button>
        </div>
      </div>
    </form>
  );
}
