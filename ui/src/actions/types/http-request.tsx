import { Field, Select } from "../../kit/field.tsx";
import { headerLines, jsonOrText, jsonText, parseHeaders } from "../config-text.ts";
import type { ActionTypeForm } from "./type.ts";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

export const httpRequest: ActionTypeForm = {
  label: "HTTP request",
  claimed: ["config.url", "config.method", "config.headers", "config.body"],
  fromConfig: (config) => ({
    url: typeof config.url === "string" ? config.url : "",
    method: typeof config.method === "string" ? config.method : "POST",
    headers: headerLines(config.headers),
    body: jsonText(config.body),
  }),
  build: (draft) => {
    const headers = parseHeaders(draft.headers ?? "", "config.headers");
    if ("errors" in headers) return headers;
    const config: Record<string, unknown> = {
      url: draft.url ?? "",
      method: draft.method || "POST",
      headers: headers.headers,
    };
    // A body that reads as a JSON object or array is sent as JSON; other text as it is.
    const body = jsonOrText(draft.body ?? "");
    if (body !== "") config.body = typeof body === "object" ? body : (draft.body ?? "");
    return { config };
  },
  Fields: ({ draft, set, errors }) => (
    <>
      <Field
        label="Request URL"
        name="config.url"
        type="url"
        value={draft.url ?? ""}
        onInput={(v) => set("url", v)}
        errors={errors["config.url"]}
        required
        hint="May hold templates and {{SECRET}} names."
      />
      <Select
        label="Method"
        name="config.method"
        value={draft.method ?? "POST"}
        options={METHODS.map((m) => ({ value: m, label: m }))}
        onChange={(v) => set("method", v)}
        errors={errors["config.method"]}
      />
      <Field
        label="Request headers"
        name="config.headers"
        value={draft.headers ?? ""}
        onInput={(v) => set("headers", v)}
        errors={errors["config.headers"]}
        multiline
        hint="One per line: Name: value"
      />
      <Field
        label="Request body"
        name="config.body"
        value={draft.body ?? ""}
        onInput={(v) => set("body", v)}
        errors={errors["config.body"]}
        multiline
        hint="JSON is sent as JSON; other text as it is."
      />
    </>
  ),
};
