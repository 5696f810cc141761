import { specForm } from "./spec.tsx";

export const ping = specForm("Ping", [
  { key: "hostname", label: "Host", required: true, hint: "A host name or an IP address." },
]);
