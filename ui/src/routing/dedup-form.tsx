import { useState } from "preact/hooks";
import { Field, FormErrors, Select, useFocusFirstInvalid } from "../kit/field.tsx";
import { useApp } from "../lib/context.ts";
import { formFailure } from "../lib/form-errors.ts";
import { dedupSettings, type Strategy } from "./dedup.ts";
import { DedupCheck } from "./dedup-check.tsx";
import { type DedupConfig, type Source, setDedup } from "./routing.api.ts";

const P = "deduplication_config.";

function strategyOf(config: DedupConfig | null): Strategy {
  if (!config || config.enabled === false) return "";
  if (config.body_path) return "body_path";
  if (config.include_fields) return "include_fields";
  return config.exclude_fields ? "exclude_fields" : "";
}

/** A source's deduplication: off, or one strategy with its field paths and how long keys live. */
export function DedupForm(props: { source: Source; onSaved: (source: Source) => void }) {
  const { api, notify } = useApp();
  const config = props.source.deduplication_config;
  const [strategy, setStrategy] = useState<Strategy>(strategyOf(config));
  const [paths, setPaths] = useState(
    config?.body_path ?? (config?.include_fields ?? config?.exclude_fields ?? []).join(", "),
  );
  const [ttl, setTtl] = useState(String(config?.ttl_seconds ?? 300));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ errors: Record<string, string[]>; message: string }>();
  useFocusFirstInvalid(failure?.errors ?? {});

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    const body = dedupSettings(strategy, paths, ttl);
    try {
      const saved = await setDedup(api, props.source.id, body);
      notify("Deduplication saved");
      props.onSaved(saved);
    } catch (error) {
      setFailure(formFailure(error));
    } finally {
      setBusy(false);
    }
  }
  const claimed = ["body_path", "include_fields", "exclude_fields", "ttl_seconds"].map(
    (k) => P + k,
  );
  const pathErrors = failure
    ? [
        ...(failure.errors[`${P}body_path`] ?? []),
        ...(failure.errors[`${P}include_fields`] ?? []),
        ...(failure.errors[`${P}exclude_fields`] ?? []),
      ]
    : [];
  return (
    <>
      <form class="card" onSubmit={submit} noValidate aria-labelledby="dedup-title">
        <h2 id="dedup-title">Deduplication</h2>
        {failure ? (
          <FormErrors errors={failure.errors} claimed={claimed} message={failure.message} />
        ) : null}
        <Select
          label="Drop duplicates by"
          name="strategy"
          value={strategy}
          options={[
            { value: "", label: "Off: keep every request" },
            { value: "body_path", label: "One field" },
            { value: "include_fields", label: "Several fields together" },
            { value: "exclude_fields", label: "Whole body except some fields" },
          ]}
          onChange={(v) => setStrategy(v as Strategy)}
        />
        {strategy ? (
          <>
            <Field
              label={strategy === "body_path" ? "Field path" : "Field paths (comma-separated)"}
              name={strategy}
              value={paths}
              hint="Paths start with body., headers., query. or path. (for example body.order_id)"
              errors={pathErrors.length ? pathErrors : undefined}
              onInput={setPaths}
            />
            <Field
              label="Remember keys for (seconds)"
              name="ttl_seconds"
              inputMode="numeric"
              value={ttl}
              errors={failure?.errors[`${P}ttl_seconds`]}
              onInput={setTtl}
            />
          </>
        ) : null}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? "Saving…" : "Save deduplication"}
        </button>
      </form>
      <DedupCheck sourceId={props.source.id} settings={dedupSettings(strategy, paths, ttl)} />
    </>
  );
}
