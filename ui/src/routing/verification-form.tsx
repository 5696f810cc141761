import { useState } from "preact/hooks";
import { Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { Notice } from "../kit/notice.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { type Source, setVerification } from "./routing.api.ts";

/** The provider schemes a form can set; generic HMAC takes more fields, set through the API. */
const SCHEMES = [
  { value: "github", label: "GitHub (X-Hub-Signature-256)" },
  { value: "stripe", label: "Stripe (Stripe-Signature)" },
  { value: "slack", label: "Slack (X-Slack-Signature)" },
  { value: "shopify", label: "Shopify (X-Shopify-Hmac-Sha256)" },
  { value: "standard_webhooks", label: "Standard Webhooks (webhook-signature)" },
] as const;
const P = "verification.";

/** The scheme a source's `type` names, suggested while its verification is off. */
export function suggestedScheme(type: string): string | null {
  const named = type
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
  return SCHEMES.some((s) => s.value === named) ? named : null;
}

/**
 * A source's signature verification: off, or a provider's scheme with its signing secret. A
 * missing or wrong signature is refused (401) before deduplication; the secret is never shown.
 */
export function VerificationForm(props: { source: Source; onSaved: (source: Source) => void }) {
  const { api, notify } = useApp();
  const current = props.source.verification;
  const suggested = current ? null : suggestedScheme(props.source.type);
  const [scheme, setScheme] = useState<string>(current?.type ?? "");
  const [secret, setSecret] = useState("");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ errors: Record<string, string[]>; message: string }>();
  useFocusFirstInvalid(failure?.errors ?? {});

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    // Without a new secret the stored one is kept while the scheme stays the same.
    const body = scheme ? { type: scheme, ...(secret ? { secret } : {}) } : null;
    try {
      const saved = await setVerification(api, props.source.id, body);
      notify("Signature verification saved");
      setSecret("");
      props.onSaved(saved);
    } catch (error) {
      setFailure(formFailure(error));
    } finally {
      setBusy(false);
    }
  }
  const custom = current?.type === "hmac";
  return (
    <form class="card" onSubmit={submit} noValidate aria-labelledby="verification-title">
      <h2 id="verification-title">Signature verification</h2>
      {suggested ? (
        <Notice kind="info">
          This source's type is “{props.source.type}”: its sender signs each webhook. Choose{" "}
          {SCHEMES.find((s) => s.value === suggested)?.label.split(" (")[0]} below so unsigned or
          forged requests are refused.
        </Notice>
      ) : null}
      {failure ? (
        <FormErrors
          errors={failure.errors}
          claimed={[`${P}type`, `${P}secret`]}
          message={failure.message}
        />
      ) : null}
      <Select
        label="Verify signatures of"
        name="type"
        value={custom ? "hmac" : scheme}
        options={[
          { value: "", label: "Off: accept every request" },
          ...SCHEMES,
          ...(custom ? [{ value: "hmac", label: "Custom HMAC (set through the API)" }] : []),
        ]}
        errors={failure?.errors[`${P}type`]}
        onChange={setScheme}
      />
      {scheme && scheme !== "hmac" ? (
        <Field
          label="Signing secret"
          name="secret"
          type="password"
          autoComplete="off"
          value={secret}
          required={!current || current.type !== scheme}
          hint={
            current?.type === scheme
              ? "A secret is set; leave empty to keep it. {{SECRET_NAME}} uses one of your secrets."
              : "From the provider's webhook settings, or {{SECRET_NAME}} for one of your secrets."
          }
          errors={failure?.errors[`${P}secret`]}
          onInput={setSecret}
        />
      ) : null}
      <button type="submit" class="button primary" disabled={busy || scheme === "hmac"}>
        {busy ? "Saving…" : "Save verification"}
      </button>
    </form>
  );
}
