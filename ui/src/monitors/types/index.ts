import type { MonitorType } from "../monitors.api.ts";
import { dns } from "./dns.tsx";
import { http } from "./http.tsx";
import { push } from "./push.tsx";
import type { MonitorTypeForm } from "./spec.tsx";
import { tcp } from "./tcp.tsx";

/** One form per monitor type: a server type without one fails `tsc -p ui`. */
export const MONITOR_TYPES: Record<MonitorType, MonitorTypeForm> = { http, tcp, dns, push };
