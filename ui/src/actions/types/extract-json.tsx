import { Field } from "../../kit/field.tsx";
import type { ActionTypeForm } from "./type.ts";

/** "variable = path" lines, one extraction each. */
const extractionLines = (extractions: unknown) =>
  (Array.isArray(extractions) ? extractions : [])
    .map((e: { variable?: string; path?: string }) => `${e.variable ?? ""} = ${e.path ?? ""}`)
    .join("\n");

export const extractJson: ActionTypeForm = {
  label: "Extract JSON",
  claimed: ["config.source", "config.extractions"],
  fromConfig: (config) => ({
    source: typeof config.source === "string" ? config.source : "body",
    extractions: extractionLines(config.extractions),
  }),
  build: (draft) => {
    const extractions = [];
    const lines = (draft.extractions ?? "").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const line = (lines[i] ?? "").trim();
      if (!line) continue;
      const equals = line.indexOf("=");
      if (equals < 1)
        return { errors: { "config.extractions": [`Line ${i + 1} is not “variable = path”.`] } };
      extractions.push({
        variable: line.slice(0, equals).trim(),
        path: line.slice(equals + 1).trim(),
      });
    }
    return { config: { source: draft.source || "body", extractions } };
  },
  Fields: ({ draft, set, errors }) => (
    <>
      <Field
        label="Source"
        name="config.source"
        value={draft.source ?? "body"}
        onInput={(v) => set("source", v)}
        errors={errors["config.source"]}
        required
        hint="body (the request's), http.body (the last answer) or a template such as $raw$."
      />
      <Field
        label="Extractions"
        name="config.extractions"
        value={draft.extractions ?? ""}
        onInput={(v) => set("extractions", v)}
        errors={errors["config.extractions"]}
        multiline
        required
        hint="One per line: variable = path, e.g. repo = repository.full_name"
      />
    </>
  ),
};
