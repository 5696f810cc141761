import { specForm } from "./spec.tsx";

export const docker = specForm("Docker container", [
  { key: "container", label: "Container", required: true, hint: "Its name or id." },
  {
    key: "docker_host",
    label: "Docker daemon",
    hint: "unix:///var/run/docker.sock (the default) or tcp://host:2375",
  },
]);
