/** Every call the monitor screens make, and their shapes. */
import type {
  CheckView,
  RollupBucketView,
  StateEventView,
} from "../../../src/monitors/checks.repo.ts";
import type { MonitorType } from "../../../src/monitors/monitors.model.ts";
import type { MonitorView } from "../../../src/monitors/monitors.present.ts";
import type { Api } from "../lib/api.ts";
import type { Page } from "../lib/types.ts";

export type Monitor = MonitorView & {
  response_sparkline?: (number | null)[];
  url?: string;
  hostname?: string;
  push_url?: string;
};
export type Check = CheckView;
export type StateEvent = StateEventView;
export type RollupBucket = RollupBucketView;
export type { MonitorType };
export type MonitorBody = Record<string, unknown>;
export type Range = "24h" | "7d" | "30d";

const data = <T>(p: Promise<{ data: T }>) => p.then((r) => r.data);
const BASE = "/api/v1/uptime-monitors";

/** The first hundred monitors with their figures and sparklines: one call for the whole list. */
export const listMonitors = (api: Api, signal?: AbortSignal) =>
  api.get<Page<Monitor>>(`${BASE}?page=1&page_size=100`, signal);
export const getMonitor = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: Monitor }>(`${BASE}/${id}`, signal));
export const createMonitor = (api: Api, body: MonitorBody) =>
  data(api.post<{ data: Monitor }>(BASE, body));
export const updateMonitor = (api: Api, id: string, body: MonitorBody) =>
  data(api.patch<{ data: Monitor }>(`${BASE}/${id}`, body));
export const deleteMonitor = (api: Api, id: string) => api.delete(`${BASE}/${id}`);
export const checkMonitorNow = (api: Api, id: string) =>
  data(api.post<{ data: Check }>(`${BASE}/${id}/check`));
export const listChecks = (api: Api, id: string, page: number, signal?: AbortSignal) =>
  api.get<Page<Check>>(`${BASE}/${id}/checks?page=${page}&page_size=20`, signal);
export const listStateEvents = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: StateEvent[] }>(`${BASE}/${id}/events`, signal));
export const listRollups = (api: Api, id: string, range: Range, signal?: AbortSignal) =>
  data(api.get<{ data: RollupBucket[] }>(`${BASE}/${id}/rollups?range=${range}`, signal));
