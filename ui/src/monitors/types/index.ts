import type { MonitorType } from "../monitors.api.ts";
import { dns } from "./dns.tsx";
import { docker } from "./docker.tsx";
import { http } from "./http.tsx";
import { ping } from "./ping.tsx";
import { push } from "./push.tsx";
import type { MonitorTypeForm } from "./spec.tsx";
import { tcp } from "./tcp.tsx";

/** One form per monitor type: a server type without one fails `tsc -p ui`. */
export const MONITOR_TYPES: Record<MonitorType, MonitorTypeForm> = {
  http,
  tcp,
  dns,
  push,
  docker,
  ping,
};
