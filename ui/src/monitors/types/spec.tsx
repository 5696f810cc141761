import type { JSX } from "preact";
import { Checkbox, Field, Select } from "../../kit/field.tsx";

export type Draft = Record<string, string>;
export type Built = { body: Record<string, unknown> } | { errors: Record<string, string[]> };

export interface FieldsProps {
  draft: Draft;
  set: (key: string, value: string) => void;
  errors: Record<string, string[]>;
}

/** One monitor type's form: its own fields, and its body to and from their text. */
export interface MonitorTypeForm {
  label: string;
  Fields: (props: FieldsProps) => JSX.Element;
  fromMonitor: (monitor: Record<string, unknown>) => Draft;
  build: (draft: Draft) => Built;
  /** The body keys its fields show errors for. */
  claimed: string[];
}

/** A field of a type's form; `key` is the body's key, so the server's errors land on it. */
export interface FieldSpec {
  key: string;
  label: string;
  kind?: "text" | "url" | "number" | "lines" | "json" | "checkbox" | "select" | "textarea";
  options?: string[];
  hint?: string;
  required?: boolean;
}

/** Whole numbers as numbers; anything else as typed, so the server names the field. */
const asNumber = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text) : text);

/** The text of a body value for its field. */
function textOf(spec: FieldSpec, value: unknown): string {
  if (value === undefined || value === null)
    return spec.kind === "select" ? (spec.options?.[0] ?? "") : "";
  if (spec.kind === "checkbox") return value ? "true" : "";
  if (spec.kind === "lines")
    return Object.entries(value as Record<string, string>)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n");
  if (spec.kind === "json")
    return typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value);
  return String(value);
}

/** A type's form made of field specs: the fields, and the body built from their text. */
export function specForm(label: string, specs: FieldSpec[]): MonitorTypeForm {
  return {
    label,
    claimed: specs.map((s) => s.key),
    fromMonitor: (monitor) =>
      Object.fromEntries(specs.map((s) => [s.key, textOf(s, monitor[s.key])])),
    build: (draft) => {
      const body: Record<string, unknown> = {};
      for (const spec of specs) {
        const text = draft[spec.key] ?? "";
        if (spec.kind === "checkbox") body[spec.key] = text === "true";
        else if (text.trim() === "") body[spec.key] = spec.kind === "lines" ? {} : null;
        else if (spec.kind === "number") body[spec.key] = asNumber(text);
        else if (spec.kind === "lines") {
          const headers: Record<string, string> = {};
          for (const [i, line] of text.split("\n").entries()) {
            if (!line.trim()) continue;
            const colon = line.indexOf(":");
            if (colon < 1)
              return { errors: { [spec.key]: [`Line ${i + 1} is not “Name: value”.`] } };
            headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
          }
          body[spec.key] = headers;
        } else if (spec.kind === "json") {
          try {
            body[spec.key] = JSON.parse(text);
          } catch {
            // A bare word is meant as text: "ok" rather than "\"ok\"".
            body[spec.key] = text;
          }
        } else body[spec.key] = text;
      }
      // Leave out what is empty and optional: the server keeps its default.
      for (const [key, value] of Object.entries(body)) if (value === null) delete body[key];
      return { body };
    },
    Fields: ({ draft, set, errors }) => (
      <>
        {specs.map((spec) =>
          spec.kind === "checkbox" ? (
            <Checkbox
              key={spec.key}
              label={spec.label}
              name={spec.key}
              checked={draft[spec.key] === "true"}
              onChange={(checked) => set(spec.key, checked ? "true" : "")}
            />
          ) : spec.kind === "select" ? (
            <Select
              key={spec.key}
              label={spec.label}
              name={spec.key}
              value={draft[spec.key] ?? ""}
              options={(spec.options ?? []).map((o) => ({ value: o, label: o }))}
              onChange={(v) => set(spec.key, v)}
              errors={errors[spec.key]}
              hint={spec.hint}
            />
          ) : (
            <Field
              key={spec.key}
              label={spec.label}
              name={spec.key}
              type={spec.kind === "url" ? "url" : "text"}
              inputMode={spec.kind === "number" ? "numeric" : undefined}
              multiline={spec.kind === "lines" || spec.kind === "textarea"}
              value={draft[spec.key] ?? ""}
              onInput={(v) => set(spec.key, v)}
              errors={errors[spec.key]}
              hint={spec.hint}
              required={spec.required}
            />
          ),
        )}
      </>
    ),
  };
}
