import { useState } from "preact/hooks";
import { Checkbox, Field, FormErrors, useFocusFirstInvalid } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { blankDraft, type PageDraft, pageBody, pageFailure } from "./page-form.ts";
import { createPage, type StatusPage, updatePage } from "./status-pages.api.ts";

const CLAIMED = [
  "name",
  "slug",
  "description",
  "primary_color",
  "logo_url",
  "custom_domain",
  "groups",
  "show_service_branding",
];

const draftOf = (page: StatusPage): PageDraft => ({
  name: page.name,
  slug: page.slug,
  description: page.description ?? "",
  primary_color: page.primary_color,
  logo_url: page.logo_url ?? "",
  show_service_branding: page.show_service_branding,
  allow_subscribers: page.allow_subscribers,
  custom_domain: page.custom_domain ?? "",
  groups: [...page.groups]
    .sort((a, b) => a.order - b.order)
    .map((g) => g.name)
    .join("\n"),
});

/** Creates a status page, or changes one's settings. */
export function StatusPageForm(props: {
  page?: StatusPage;
  onSaved: (page: StatusPage) => void;
  onCancel?: () => void;
}) {
  const { api, notify } = useApp();
  const editing = props.page;
  const [draft, setDraft] = useState<PageDraft>(() => (editing ? draftOf(editing) : blankDraft()));
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  useFocusFirstInvalid(errors);

  const set =
    <K extends keyof PageDraft>(key: K) =>
    (value: PageDraft[K]) => {
      setDraft((d) => ({ ...d, [key]: value }));
      if (!errors[key]) return;
      const { [key]: _, ...rest } = errors;
      setErrors(rest);
    };
  const text = (key: keyof PageDraft, label: string, extra: Record<string, unknown> = {}) => (
    <Field
      label={label}
      name={key}
      value={String(draft[key])}
      onInput={set(key) as (v: string) => void}
      errors={errors[key]}
      {...extra}
    />
  );

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const body = pageBody(draft);
      const saved = editing ? await updatePage(api, editing.id, body) : await createPage(api, body);
      setErrors({});
      setMessage("");
      notify(`Status page “${saved.name}” ${editing ? "saved" : "created"}`);
      props.onSaved(saved);
    } catch (e) {
      const failure = pageFailure(e);
      setErrors(failure.errors);
      setMessage(failure.message);
    } finally {
      setBusy(false);
    }
  }

  const label = editing ? "Save status page" : "Create status page";
  return (
    <form class="card" onSubmit={submit} noValidate aria-label={label}>
      <div class="field-row">
        {text("name", "Page name", { required: true })}
        {text("slug", "Slug", {
          required: true,
          hint: "3–50 lowercase letters, digits and hyphens: the page is at /status/{slug}.",
        })}
      </div>
      {text("description", "Description", { multiline: true })}
      <div class="field-row">
        {text("primary_color", "Colour", { required: true, hint: "A hex colour, e.g. #0f766e." })}
        {text("logo_url", "Logo URL", { type: "url", hint: "An http(s) address of an image." })}
      </div>
      {text("groups", "Groups", {
        multiline: true,
        hint: "One per line, in the order the page shows them.",
      })}
      {text("custom_domain", "Custom domain", {
        hint: "A hostname such as status.acme.example, pointed at this server.",
      })}
      <Checkbox
        label="Show “Powered by Weir”"
        name="show_service_branding"
        checked={draft.show_service_branding}
        onChange={set("show_service_branding")}
      />
      <Checkbox
        label="Offer updates by email (needs the server's mail settings)"
        name="allow_subscribers"
        checked={draft.allow_subscribers}
        onChange={set("allow_subscribers")}
      />
      <FormErrors errors={errors} claimed={CLAIMED} message={message || undefined} />
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : label}
        </button>
        {props.onCancel ? (
          <button type="button" class="button" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
