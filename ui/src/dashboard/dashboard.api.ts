/** The few small list calls the dashboard makes, and the parts of their shapes it reads. */
import type { presentIssue } from "../../../src/issues/issues.present.ts";
import type { MonitorView } from "../../../src/monitors/monitors.present.ts";
import type { listEvents } from "../../../src/routing/events.service.ts";
import type { Api } from "../lib/api.ts";
import type { Endpoint, Page } from "../lib/types.ts";

export type DashboardIssue = ReturnType<typeof presentIssue>;
export type DashboardEvent = Awaited<ReturnType<typeof listEvents>>["events"][number];
export type DashboardMonitor = Pick<MonitorView, "id" | "name" | "status" | "last_checked_at">;
export interface IssuesAnswer {
  items: DashboardIssue[];
  pagination: { total_records: number };
}

export const LIMIT = 5;

/** Monitors come unfiltered (the API has no state filter): the first hundred are looked through. */
export const listMonitors = (api: Api, signal?: AbortSignal) =>
  api.get<Page<DashboardMonitor>>("/api/v1/uptime-monitors?page=1&page_size=100", signal);
export const listOpenIssues = (api: Api, signal?: AbortSignal) =>
  api.get<IssuesAnswer>(`/api/v1/issues?status=open&page=1&page_size=${LIMIT}`, signal);
export const listFailedEvents = (api: Api, signal?: AbortSignal) =>
  api.get<Page<DashboardEvent>>(`/api/v1/events?status=failed&page=1&page_size=${LIMIT}`, signal);
export const listEndpoints = (api: Api, signal?: AbortSignal) =>
  api.get<{ data: Endpoint[] }>("/api/v1/endpoints", signal).then((r) => r.data);
