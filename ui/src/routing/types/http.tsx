import { Checkbox, Field, Select } from "../../kit/field.tsx";
import { type DestinationTypeForm, type Draft, type TypeFieldsProps, text } from "./fields.ts";

/** `Name: value` lines, one header each, as the object the API takes. */
export function headersFromLines(lines: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines.split("\n")) {
    const at = line.indexOf(":");
    if (at <= 0) continue;
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

export const headersToLines = (headers: Record<string, string> | null | undefined) =>
  Object.entries(headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n");

function HttpFields({ draft, set, errors, secretHint }: TypeFieldsProps) {
  return (
    <>
      <Field
        label="URL"
        name="url"
        type="url"
        required
        value={text(draft, "url")}
        hint={`Where events are sent. ${secretHint}`}
        errors={errors.url}
        onInput={(v) => set("url", v)}
      />
      <Select
        label="Method"
        name="method"
        value={text(draft, "method")}
        options={["POST", "PUT", "PATCH", "GET"].map((m) => ({ value: m, label: m }))}
        errors={errors.method}
        onChange={(v) => set("method", v)}
      />
      <Field
        label="Headers"
        name="headers"
        multiline
        value={text(draft, "headers")}
        hint={`One "Name: value" per line. ${secretHint}`}
        errors={errors.headers}
        onInput={(v) => set("headers", v)}
      />
      <Field
        label="Retries"
        name="max_retries"
        inputMode="numeric"
        value={text(draft, "max_retries")}
        hint="0 to 15 attempts after the first"
        errors={errors.max_retries}
        onInput={(v) => set("max_retries", v)}
      />
      <Checkbox
        label="Forward the sub-path and query after the ingest URL"
        name="path_forwarding"
        checked={draft.path_forwarding === true}
        onChange={(v) => set("path_forwarding", v)}
      />
    </>
  );
}

export const http: DestinationTypeForm = {
  label: "HTTP",
  Fields: HttpFields,
  blank: { url: "", method: "POST", headers: "", max_retries: "15", path_forwarding: true },
  body: (draft: Draft) => ({
    url: text(draft, "url"),
    method: text(draft, "method"),
    headers: headersFromLines(text(draft, "headers")),
    max_retries: Number(text(draft, "max_retries")),
    path_forwarding: draft.path_forwarding === true,
  }),
};
