import { specForm } from "./spec.tsx";

export const tcp = specForm("TCP port", [
  { key: "url", label: "Address", required: true, hint: "tcp://host:port" },
]);
