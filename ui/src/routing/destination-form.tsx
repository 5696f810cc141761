import { useState } from "preact/hooks";
import { Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { FilterEditor } from "./filter-editor.tsx";
import { filterErrors, parseFilters } from "./filters.ts";
import {
  createDestination,
  type Destination,
  type DestinationType,
  updateDestination,
} from "./routing.api.ts";
import type { Draft } from "./types/fields.ts";
import { headersToLines } from "./types/http.tsx";
import { DESTINATION_FORMS } from "./types/index.ts";

function draftOf(d: Destination): Draft {
  return {
    url: d.url ?? "",
    method: d.method ?? "POST",
    headers: headersToLines(d.headers),
    max_retries: String(d.max_retries ?? 15),
    path_forwarding: d.path_forwarding !== false,
    webhook_url: d.webhook_url ?? "",
    bot_token: d.bot_token ?? "",
    chat_id: d.chat_id ?? "",
  };
}

/** Adds a destination to a bridge, or changes one: the shared fields, then the type's own. */
export function DestinationForm(props: {
  bridgeId: string;
  /** The bridge's source: the filter editor tries drafts on its latest events. */
  sourceId?: string;
  destination?: Destination;
  secretNames: string[];
  /** The organization's transformations a destination may run before sending. */
  transformations: { id: string; name: string }[];
  onSaved: (saved: Destination) => void;
  onCancel?: () => void;
}) {
  const { api, notify } = useApp();
  const existing = props.destination;
  const [type, setType] = useState<DestinationType>(existing?.type ?? "http");
  const [name, setName] = useState(existing?.name ?? "");
  const [transformationId, setTransformationId] = useState(existing?.transformation_id ?? "");
  const [priority, setPriority] = useState<string>(existing?.priority ?? "normal");
  const [filters, setFilters] = useState(
    existing && existing.filters.length > 0 ? JSON.stringify(existing.filters, null, 2) : "",
  );
  const [draft, setDraft] = useState<Draft>(
    existing ? draftOf(existing) : { ...DESTINATION_FORMS.http.blank },
  );
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ errors: Record<string, string[]>; message: string }>();
  const errors = failure?.errors ?? {};
  useFocusFirstInvalid(errors);
  const form = DESTINATION_FORMS[type];
  const secretHint = props.secretNames.length
    ? `Secrets: ${props.secretNames.map((n) => `{{${n}}}`).join(", ")}.`
    : "Write {{NAME}} to use a secret.";

  const clear = (key: string) => {
    if (!failure?.errors[key]) return;
    const { [key]: _, ...rest } = failure.errors;
    setFailure({ ...failure, errors: rest });
  };

  async function submit(event: Event) {
    event.preventDefault();
    const parsed = parseFilters(filters);
    if ("error" in parsed) {
      setFailure({ errors: { filters: [parsed.error] }, message: "Some fields need attention." });
      return;
    }
    setBusy(true);
    setFailure(undefined);
    const body = {
      name,
      type,
      priority,
      filters: parsed.filters,
      transformation_id: transformationId || null,
      ...form.body(draft),
    };
    try {
      const saved = existing
        ? await updateDestination(api, props.bridgeId, existing.id, body)
        : await createDestination(api, props.bridgeId, body);
      notify(existing ? `Destination “${saved.name}” saved` : `Destination “${saved.name}” added`);
      props.onSaved(saved);
    } catch (error) {
      setFailure(formFailure(error));
    } finally {
      setBusy(false);
    }
  }

  const fieldNames = [
    "name",
    "type",
    "priority",
    "transformation_id",
    "url",
    "method",
    "headers",
    "max_retries",
    "path_forwarding",
    "webhook_url",
    "bot_token",
    "chat_id",
  ];
  const claimed = [...fieldNames, ...Object.keys(errors).filter((k) => k.startsWith("filters"))];
  const filterMessages = filterErrors(errors);
  return (
    <form class="card destination-form" onSubmit={submit} noValidate>
      <h3>{existing ? `Edit ${existing.name}` : "Add a destination"}</h3>
      {failure ? (
        <FormErrors errors={failure.errors} claimed={claimed} message={failure.message} />
      ) : null}
      <Field
        label="Destination name"
        name="name"
        value={name}
        required
        errors={errors.name}
        onInput={(v) => {
          setName(v);
          clear("name");
        }}
      />
      {existing ? null : (
        <Select
          label="Type"
          name="type"
          value={type}
          options={Object.entries(DESTINATION_FORMS).map(([value, f]) => ({
            value,
            label: f.label,
          }))}
          errors={errors.type}
          onChange={(v) => {
            const next = v as DestinationType;
            setType(next);
            setDraft({ ...DESTINATION_FORMS[next].blank });
          }}
        />
      )}
      <form.Fields
        draft={draft}
        errors={errors}
        secretHint={secretHint}
        set={(key, value) => {
          setDraft({ ...draft, [key]: value });
          clear(key);
        }}
      />
      <Select
        label="Priority"
        name="priority"
        value={priority}
        options={[
          { value: "normal", label: "Normal" },
          { value: "high", label: "High (sent first when busy)" },
        ]}
        errors={errors.priority}
        onChange={setPriority}
      />
      <Select
        label="Transformation"
        name="transformation_id"
        value={transformationId}
        options={[
          { value: "", label: "None: send the request as received" },
          ...props.transformations.map((t) => ({ value: t.id, label: t.name })),
        ]}
        hint="Code that changes or drops each event before it is sent (Transformations)."
        errors={errors.transformation_id}
        onChange={setTransformationId}
      />
      <FilterEditor
        value={filters}
        sourceId={props.sourceId}
        submitErrors={filterMessages.length ? filterMessages : undefined}
        onInput={(v) => {
          setFilters(v);
          if (filterMessages.length && failure) {
            const rest = Object.fromEntries(
              Object.entries(failure.errors).filter(([k]) => !k.startsWith("filters")),
            );
            setFailure({ ...failure, errors: rest });
          }
        }}
      />
      <div class="actions">
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : existing ? "Save destination" : "Add destination"}
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
