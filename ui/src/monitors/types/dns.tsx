import { specForm } from "./spec.tsx";

export const dns = specForm("DNS", [
  { key: "hostname", label: "Hostname", required: true },
  {
    key: "record_type",
    label: "Record type",
    kind: "select",
    options: ["A", "AAAA", "CNAME", "MX", "TXT", "NS"],
  },
  { key: "expected", label: "Expected value", hint: "A record that must be among the answers." },
]);
