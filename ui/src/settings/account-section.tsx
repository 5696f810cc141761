import { useState } from "preact/hooks";
import { Field } from "../kit/field.tsx";
import { Notice } from "../kit/notice.tsx";
import { ApiError, errorText } from "../lib/api.ts";
import { useApp } from "../lib/context.ts";

type Errors = Record<string, string[]>;

/** A form's busy flag, field errors and message, around one API call. */
function useForm() {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState("");
  async function run(action: () => Promise<void>) {
    setBusy(true);
    setErrors({});
    setError("");
    try {
      await action();
    } catch (e) {
      if (e instanceof ApiError) setErrors(e.fields);
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }
  return { busy, errors, error, run };
}

/** Renames the organization (owners; the server checks it too). */
export function OrganizationNameForm() {
  const { api, org, notify, refreshMe } = useApp();
  const [name, setName] = useState(org.name);
  const form = useForm();
  const submit = (event: Event) => {
    event.preventDefault();
    form.run(async () => {
      await api.patch(`/api/v1/organizations/${org.id}`, { name });
      await refreshMe();
      notify("Organization renamed.");
    });
  };
  return (
    <form class="inline-form" onSubmit={submit} noValidate>
      {form.error ? <Notice kind="error">{form.error}</Notice> : null}
      <Field
        label="Organization name"
        name="organization_name"
        required
        value={name}
        onInput={setName}
        errors={form.errors.name}
      />
      <button type="submit" class="button" disabled={form.busy || name.trim() === org.name}>
        Rename
      </button>
    </form>
  );
}

/** The signed-in user's password: the current one, then the new one. */
export function PasswordSection() {
  const { api, me, notify } = useApp();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const form = useForm();
  if (!me.user) return null;
  const submit = (event: Event) => {
    event.preventDefault();
    form.run(async () => {
      // The answer renews this browser's session cookie; every other session has ended.
      await api.post("/api/v1/me/password", { current_password: current, new_password: next });
      setCurrent("");
      setNext("");
      notify("Password changed. Your other sessions have ended.");
    });
  };
  return (
    <section class="card" aria-labelledby="password-title">
      <h2 id="password-title">Your password</h2>
      <p class="muted small">Changing it logs you out everywhere else.</p>
      <form onSubmit={submit} noValidate>
        {form.error ? <Notice kind="error">{form.error}</Notice> : null}
        <Field
          label="Current password"
          name="current_password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onInput={setCurrent}
          errors={form.errors.current_password}
        />
        <Field
          label="New password"
          name="new_password"
          type="password"
          autoComplete="new-password"
          hint="At least 8 characters."
          required
          value={next}
          onInput={setNext}
          errors={form.errors.new_password}
        />
        <button type="submit" class="button primary" disabled={form.busy || !current || !next}>
          Change password
        </button>
      </form>
    </section>
  );
}
