/** Every call the status page, incident and maintenance screens make, and their shapes. */
import type { WindowView } from "../../../src/maintenance/maintenance.present.ts";
import type { presentBridge } from "../../../src/routing/routing.present.ts";
import type {
  presentComponent,
  presentIncident,
  presentPage,
} from "../../../src/status-pages/status-pages.present.ts";
import type { Api } from "../lib/api.ts";

export type StatusPage = ReturnType<typeof presentPage>;
export type PageComponent = ReturnType<typeof presentComponent>;
export type Incident = ReturnType<typeof presentIncident>;
export type MaintenanceWindow = WindowView;
export type Bridge = ReturnType<typeof presentBridge>;
export interface MonitorChoice {
  id: string;
  name: string;
  status: string;
}
export interface Placement {
  display_name?: string | null;
  display_order?: number;
  group?: string | null;
}
/** What `/status/{slug}.json` answers: only the parts the preview shows. */
export interface PublicPage {
  status_label: string;
  groups: { name: string; items: { id: string; name: string; status_label: string }[] }[];
  incidents: { active: { id: string; title: string }[] };
}

const data = <T>(p: Promise<{ data: T }>) => p.then((r) => r.data);
const BASE = "/api/v1/status-pages";
const WINDOWS = "/api/v1/maintenance-windows";

export const listPages = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: StatusPage[] }>(BASE, signal));
export const getPage = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: StatusPage }>(`${BASE}/${id}`, signal));
export const createPage = (api: Api, body: Record<string, unknown>) =>
  data(api.post<{ data: StatusPage }>(BASE, { status_page: body }));
export const updatePage = (api: Api, id: string, body: Record<string, unknown>) =>
  data(api.put<{ data: StatusPage }>(`${BASE}/${id}`, { status_page: body }));
export const deletePage = (api: Api, id: string) => api.delete(`${BASE}/${id}`);
/** Attaching a monitor already on the page changes its placement. */
export const placeMonitor = (api: Api, id: string, monitorId: string, body: Placement) =>
  api.post(`${BASE}/${id}/monitors/${monitorId}`, body);
export const detachMonitor = (api: Api, id: string, monitorId: string) =>
  api.delete(`${BASE}/${id}/monitors/${monitorId}`);
export const addComponent = (api: Api, id: string, body: Record<string, unknown>) =>
  data(api.post<{ data: PageComponent }>(`${BASE}/${id}/components`, body));
export const removeComponent = (api: Api, id: string, componentId: string) =>
  api.delete(`${BASE}/${id}/components/${componentId}`);
/**
 * The public page's JSON twin, as a visitor gets it. The browser may keep an answer for 5 s, so
 * `version` makes each read after an edit a new address.
 */
export const getPublicPage = (api: Api, slug: string, version: string, signal?: AbortSignal) =>
  data(
    api.get<{ data: PublicPage }>(
      `/status/${encodeURIComponent(slug)}.json?v=${encodeURIComponent(version)}`,
      signal,
    ),
  );

export const listIncidents = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: Incident[] }>(`${BASE}/${id}/incidents`, signal));
export const openIncident = (api: Api, id: string, body: Record<string, unknown>) =>
  data(api.post<{ data: Incident }>(`${BASE}/${id}/incidents`, body));
export const postUpdate = (api: Api, id: string, incidentId: string, body: object) =>
  data(api.post<{ data: Incident }>(`${BASE}/${id}/incidents/${incidentId}/updates`, body));
export const deleteIncident = (api: Api, id: string, incidentId: string) =>
  api.delete(`${BASE}/${id}/incidents/${incidentId}`);

export const listMonitorChoices = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: MonitorChoice[] }>("/api/v1/uptime-monitors?page=1&page_size=100", signal));
export const listBridges = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: Bridge[] }>("/api/v1/bridges", signal));

export const listWindows = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: MaintenanceWindow[] }>(WINDOWS, signal));
export const createWindow = (api: Api, body: Record<string, unknown>) =>
  data(api.post<{ data: MaintenanceWindow }>(WINDOWS, body));
export const updateWindow = (api: Api, id: string, body: Record<string, unknown>) =>
  data(api.patch<{ data: MaintenanceWindow }>(`${WINDOWS}/${id}`, body));
export const deleteWindow = (api: Api, id: string) => api.delete(`${WINDOWS}/${id}`);
