import { CodeInput } from "../../kit/code-input.tsx";
import type { ActionTypeForm } from "./type.ts";

export const runScript: ActionTypeForm = {
  label: "Run script",
  claimed: ["config.code"],
  fromConfig: (config) => ({ code: typeof config.code === "string" ? config.code : "" }),
  build: (draft) => ({ config: { code: draft.code ?? "" } }),
  Fields: ({ draft, set, errors }) => (
    <CodeInput
      label="Script"
      name="config.code"
      value={draft.code ?? ""}
      onInput={(v) => set("code", v)}
      errors={errors["config.code"]}
      hint="JavaScript with request and variables; set variables.x = … to pass a value on."
    />
  ),
};
