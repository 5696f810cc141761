import { CodeInput } from "../../kit/code-input.tsx";
import { jsonText, parseJsonField } from "../config-text.ts";
import type { ActionTypeForm } from "./type.ts";

export const condition: ActionTypeForm = {
  label: "Condition",
  claimed: ["config"],
  fromConfig: (config) => ({ filter: jsonText(config) }),
  build: (draft) => {
    const parsed = parseJsonField(draft.filter || "{}", "config");
    if ("errors" in parsed) return parsed;
    return { config: parsed.value as Record<string, unknown> };
  },
  Fields: ({ draft, set, errors }) => (
    <CodeInput
      label="Filter (JSON)"
      name="config"
      value={draft.filter ?? ""}
      onInput={(v) => set("filter", v)}
      errors={errors.config}
      hint='A routing filter, e.g. {"body.amount": {"$gt": 1000}}; when it does not match, the actions after it are skipped.'
    />
  ),
};
