import { useState } from "preact/hooks";
import { Field } from "../kit/field.tsx";
import { Link } from "../kit/link.tsx";
import { Notice } from "../kit/notice.tsx";
import { type Api, ApiError } from "../lib/api.ts";
import type { Organization } from "../lib/types.ts";

/** What a login or registration answered; the session itself is the cookie it set. */
export interface LoggedIn {
  organizations?: Organization[];
}

type Errors = Record<string, string[]>;

/** Runs a form submission: busy flag, field errors from a 422, one message for the rest. */
function useSubmit() {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Errors>({});
  const [message, setMessage] = useState("");
  async function run(action: () => Promise<void>) {
    setBusy(true);
    setErrors({});
    setMessage("");
    try {
      await action();
    } catch (error) {
      if (error instanceof ApiError) {
        setErrors(error.fields);
        setMessage(error.message);
      } else setMessage(String(error));
    } finally {
      setBusy(false);
    }
  }
  return { busy, errors, message, run };
}

/** First run: no user exists yet, so this form creates the owner and their organization. */
export function SetupPage(props: {
  api: Api;
  firstRun: boolean;
  onDone: (login: LoggedIn) => void;
}) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [orgName, setOrgName] = useState("");
  const form = useSubmit();
  const submit = (event: Event) => {
    event.preventDefault();
    form.run(async () => {
      await props.api.post("/api/v1/auth/register", {
        email,
        password,
        organization_name: orgName,
      });
      props.onDone({});
    });
  };
  return (
    <main id="main" class="auth-page">
      <form class="card auth-card" onSubmit={submit} noValidate>
        <h1>{props.firstRun ? "Welcome to Weir" : "Create an account"}</h1>
        <p>
          {props.firstRun
            ? "Nobody has an account on this server yet. Create the first one: you become the owner of its organization and can add others later."
            : "Create an account with a new organization of your own."}
        </p>
        <p class="muted" data-testid="setup-plan">
          {props.firstRun
            ? "This first organization gets the Enterprise plan: every feature, no endpoint limit. Plans are quotas the operator sets (weir admin set-plan); organizations created later get the server's default plan (WEIR_DEFAULT_PLAN)."
            : "Your organization gets this server's default plan (WEIR_DEFAULT_PLAN); its operator can change it with weir admin set-plan."}
        </p>
        {form.message ? <Notice kind="error">{form.message}</Notice> : null}
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onInput={setEmail}
          errors={form.errors.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 8 characters."
          value={password}
          onInput={setPassword}
          errors={form.errors.password}
        />
        <Field
          label="Organization name"
          name="organization_name"
          required
          autoComplete="organization"
          value={orgName}
          onInput={setOrgName}
          errors={form.errors.organization_name}
        />
        <button type="submit" class="button primary wide" disabled={form.busy}>
          {form.busy ? "Creating account…" : "Create account"}
        </button>
        {props.firstRun ? null : (
          <p class="muted">
            Have an account? <Link href="/login">Log in</Link>.
          </p>
        )}
      </form>
    </main>
  );
}

/** Password login; the server answers with the httpOnly session cookie. */
export function LoginPage(props: {
  api: Api;
  onDone: (login: LoggedIn) => void;
  notice?: string;
  canRegister: boolean;
  /** The server offers temporary endpoints without an account (WEIR_ANONYMOUS_ENDPOINTS). */
  anonymousOn: boolean;
}) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const form = useSubmit();
  const submit = (event: Event) => {
    event.preventDefault();
    form.run(async () => {
      const result = await props.api.post<{ organizations: Organization[] }>("/api/v1/auth/login", {
        email,
        password,
      });
      props.onDone({ organizations: result.organizations });
    });
  };
  return (
    <main id="main" class="auth-page">
      <form class="card auth-card" onSubmit={submit} noValidate>
        <h1>Log in to Weir</h1>
        {props.notice ? <Notice kind="info">{props.notice}</Notice> : null}
        {form.message ? <Notice kind="error">{form.message}</Notice> : null}
        <Field
          label="Email"
          name="email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onInput={setEmail}
          errors={form.errors.email}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={setPassword}
          errors={form.errors.password}
        />
        <button type="submit" class="button primary wide" disabled={form.busy}>
          {form.busy ? "Logging in…" : "Log in"}
        </button>
        {props.canRegister ? (
          <p class="muted">
            No account? <Link href="/setup">Create one</Link>.
          </p>
        ) : (
          <p class="muted">
            Forgot your password? An administrator can reset it with{" "}
            <code>weir admin reset-password</code>.
          </p>
        )}
        {props.anonymousOn ? (
          <p class="muted">
            Just need to see a webhook? <Link href="/anonymous">Get a temporary URL now</Link>, no
            account needed.
          </p>
        ) : null}
      </form>
    </main>
  );
}
