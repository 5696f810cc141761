import { Field } from "../../kit/field.tsx";
import { headerLines, parseHeaders } from "../config-text.ts";
import type { ActionTypeForm } from "./type.ts";

export const modifyResponse: ActionTypeForm = {
  label: "Modify response",
  claimed: ["config.status", "config.headers", "config.body"],
  fromConfig: (config) => ({
    status: config.status === undefined ? "" : String(config.status),
    headers: headerLines(config.headers),
    body: typeof config.body === "string" ? config.body : "",
  }),
  build: (draft) => {
    const headers = parseHeaders(draft.headers ?? "", "config.headers");
    if ("errors" in headers) return headers;
    const config: Record<string, unknown> = {};
    const status = (draft.status ?? "").trim();
    // A non-number is sent as typed, so the server names the field.
    if (status) config.status = /^\d+$/.test(status) ? Number(status) : status;
    if (Object.keys(headers.headers).length > 0) config.headers = headers.headers;
    if (draft.body) config.body = draft.body;
    return { config };
  },
  Fields: ({ draft, set, errors }) => (
    <>
      <Field
        label="Response status"
        name="config.status"
        inputMode="numeric"
        value={draft.status ?? ""}
        onInput={(v) => set("status", v)}
        errors={errors["config.status"]}
        hint="200–599; empty keeps the endpoint's own."
      />
      <Field
        label="Response headers"
        name="config.headers"
        value={draft.headers ?? ""}
        onInput={(v) => set("headers", v)}
        errors={errors["config.headers"]}
        multiline
        hint="One per line: Name: value"
      />
      <Field
        label="Response body"
        name="config.body"
        value={draft.body ?? ""}
        onInput={(v) => set("body", v)}
        errors={errors["config.body"]}
        multiline
        hint={'Text with templates, e.g. {"amount": $request.body.amount$}'}
      />
    </>
  ),
};
