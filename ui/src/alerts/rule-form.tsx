import { useState } from "preact/hooks";
import { Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import {
  type AlertChannelType,
  type AlertRule,
  type ConditionType,
  createRule,
  updateRule,
} from "./alerts.api.ts";
import {
  addressLines,
  addressList,
  CHANNELS,
  CONDITIONS,
  headerLines,
  parseHeaderLines,
} from "./channels.ts";

/** Creates a rule, or changes one: name, condition, then the channel's own fields. */
export function RuleForm(props: {
  rule?: AlertRule;
  secretNames: string[];
  onSaved: (rule: AlertRule) => void;
}) {
  const { api, notify } = useApp();
  const r = props.rule;
  const [name, setName] = useState(r?.name ?? "");
  const [condition, setCondition] = useState<ConditionType>(r?.condition.type ?? "issue_created");
  const [value, setValue] = useState(String(r?.condition.value ?? ""));
  const [channel, setChannel] = useState<AlertChannelType>(r?.channel.type ?? "slack");
  const [fields, setFields] = useState<Record<string, string>>(() => {
    const c = (r?.channel ?? {}) as Record<string, unknown>;
    return {
      webhook_url: String(c.webhook_url ?? ""),
      bot_token: String(c.bot_token ?? ""),
      chat_id: String(c.chat_id ?? ""),
      url: String(c.url ?? ""),
      headers: headerLines(c.headers),
      to: addressLines(c.to),
    };
  });
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ errors: Record<string, string[]>; message: string }>();
  const errors = failure?.errors ?? {};
  useFocusFirstInvalid(errors);
  const hint = props.secretNames.length
    ? `Secrets: ${props.secretNames.map((n) => `{{${n}}}`).join(", ")}.`
    : "Write {{NAME}} to use a secret.";

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    const channelBody: Record<string, unknown> = { type: channel };
    for (const f of CHANNELS[channel].fields)
      channelBody[f.name] =
        f.name === "headers"
          ? parseHeaderLines(fields[f.name] ?? "")
          : f.name === "to"
            ? addressList(fields[f.name] ?? "")
            : fields[f.name];
    const body = {
      name,
      condition: CONDITIONS[condition].value
        ? { type: condition, value: Number(value) }
        : { type: condition },
      channel: channelBody,
    };
    try {
      const saved = r ? await updateRule(api, r.id, body) : await createRule(api, body);
      notify(r ? `Alert rule “${saved.name}” saved` : `Alert rule “${saved.name}” created`);
      if (!r) {
        setName("");
        setValue("");
      }
      props.onSaved(saved);
    } catch (error) {
      setFailure(formFailure(error));
    } finally {
      setBusy(false);
    }
  }
  const claimed = [
    "name",
    "condition.type",
    "condition.value",
    "channel.type",
    ...CHANNELS[channel].fields.map((f) => `channel.${f.name}`),
  ];
  return (
    <form
      class="card"
      onSubmit={submit}
      noValidate
      aria-label={r ? `Edit ${r.name}` : "New alert rule"}
    >
      <h2>{r ? "Edit rule" : "New alert rule"}</h2>
      {failure ? <FormErrors errors={errors} claimed={claimed} message={failure.message} /> : null}
      <Field
        label="Rule name"
        name="name"
        value={name}
        required
        errors={errors.name}
        onInput={setName}
      />
      <Select
        label="When"
        name="condition.type"
        value={condition}
        options={Object.entries(CONDITIONS).map(([v, c]) => ({ value: v, label: c.label }))}
        errors={errors["condition.type"]}
        onChange={(v) => setCondition(v as ConditionType)}
      />
      {CONDITIONS[condition].value ? (
        <Field
          label={CONDITIONS[condition].value ?? ""}
          name="condition.value"
          inputMode="numeric"
          value={value}
          required
          errors={errors["condition.value"]}
          onInput={setValue}
        />
      ) : null}
      <Select
        label="Send to"
        name="channel.type"
        value={channel}
        options={Object.entries(CHANNELS).map(([v, c]) => ({ value: v, label: c.label }))}
        errors={errors["channel.type"]}
        onChange={(v) => setChannel(v as AlertChannelType)}
      />
      {CHANNELS[channel].fields.map((f) => (
        <Field
          key={`${channel}-${f.name}`}
          label={f.label}
          name={`channel.${f.name}`}
          multiline={f.multiline}
          value={fields[f.name] ?? ""}
          hint={f.name === "headers" ? `One "Name: value" per line. ${hint}` : hint}
          errors={errors[`channel.${f.name}`]}
          onInput={(v) => setFields({ ...fields, [f.name]: v })}
        />
      ))}
      <button type="submit" class="button primary" disabled={busy}>
        {busy ? "Saving…" : r ? "Save rule" : "Create rule"}
      </button>
    </form>
  );
}
