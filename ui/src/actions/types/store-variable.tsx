import { Field } from "../../kit/field.tsx";
import { jsonOrText, jsonText } from "../config-text.ts";
import type { ActionTypeForm } from "./type.ts";

export const storeVariable: ActionTypeForm = {
  label: "Store variable",
  claimed: ["config.name", "config.value"],
  fromConfig: (config) => ({
    name: typeof config.name === "string" ? config.name : "",
    value: jsonText(config.value),
  }),
  build: (draft) => ({ config: { name: draft.name ?? "", value: jsonOrText(draft.value ?? "") } }),
  Fields: ({ draft, set, errors }) => (
    <>
      <Field
        label="Variable name"
        name="config.name"
        value={draft.name ?? ""}
        onInput={(v) => set("name", v)}
        errors={errors["config.name"]}
        required
        hint="Kept for the endpoint: later captures read it as $name$."
      />
      <Field
        label="Value"
        name="config.value"
        value={draft.value ?? ""}
        onInput={(v) => set("value", v)}
        errors={errors["config.value"]}
        required
        hint="Text with templates, or JSON; $x$ alone keeps x's type."
      />
    </>
  ),
};
