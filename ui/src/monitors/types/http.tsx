import { specForm } from "./spec.tsx";

export const http = specForm("HTTP(S)", [
  {
    key: "url",
    label: "URL",
    kind: "url",
    required: true,
    hint: "http(s)://…; {{SECRET}} names allowed.",
  },
  {
    key: "method",
    label: "Method",
    kind: "select",
    options: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  },
  { key: "expected_status", label: "Expected status", hint: "e.g. 200-299,301 (default 200-299)." },
  { key: "headers", label: "Headers", kind: "lines", hint: "One per line: Name: value" },
  { key: "body", label: "Request body", kind: "textarea" },
  { key: "keyword", label: "Keyword", hint: "Down when the answer's first 64 KiB lack it." },
  { key: "keyword_absent", label: "Down when the keyword is present instead", kind: "checkbox" },
  { key: "json_path", label: "JSON path", hint: "e.g. queue.depth" },
  {
    key: "json_expected",
    label: "JSON expected",
    kind: "json",
    hint: 'A value or a filter such as {"$lt": 1000}.',
  },
  {
    key: "degraded_after_ms",
    label: "Degraded after (ms)",
    kind: "number",
    hint: "Slower answers count as degraded.",
  },
]);
