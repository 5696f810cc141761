/** Every call the events screens make, and their shapes (the server presenters' own types). */
import type { presentAttempt } from "../../../src/routing/events.present.ts";
import type { getEvent, listEvents as listed } from "../../../src/routing/events.service.ts";
import type { presentBridge, presentSource } from "../../../src/routing/routing.present.ts";
import type { Api } from "../lib/api.ts";
import type { Page } from "../lib/types.ts";

export type EventRow = Awaited<ReturnType<typeof listed>>["events"][number];
export type EventDetail = Awaited<ReturnType<typeof getEvent>>;
export type Delivery = EventDetail["deliveries"][number];
export type Attempt = ReturnType<typeof presentAttempt>;
export type EventStatus = EventRow["status"];
export type SourceRef = Pick<ReturnType<typeof presentSource>, "id" | "name">;
type BridgeJson = ReturnType<typeof presentBridge>;
export type BridgeRef = Pick<BridgeJson, "id" | "name" | "source_id"> & {
  destinations: Pick<BridgeJson["destinations"][number], "id" | "name" | "type">[];
};
export type RetryAction = "requeued" | "pulled_forward" | "unchanged" | "created";
export type RetriedEvent = Omit<EventDetail, "deliveries"> & {
  requeued: number;
  deliveries: (Delivery & { action: RetryAction })[];
};

/** The list's filters, as the API names them (and the URL too). */
export interface EventFilters {
  status: string;
  source_id: string;
  bridge_id: string;
  since: string;
  until: string;
}

const filterQuery = (filters: EventFilters) => {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) params.set(key, value);
  return params;
};

export function listEvents(
  api: Api,
  filters: EventFilters,
  page: number,
  signal?: AbortSignal,
): Promise<Page<EventRow>> {
  const params = filterQuery(filters);
  params.set("page", String(page));
  params.set("page_size", "25");
  return api.get(`/api/v1/events?${params}`, signal);
}

export const getEventDetail = (api: Api, id: string, signal?: AbortSignal) =>
  api.get<{ data: EventDetail }>(`/api/v1/events/${id}`, signal).then((r) => r.data);

export const listAttempts = (api: Api, id: string, signal?: AbortSignal) =>
  api.get<{ data: Attempt[] }>(`/api/v1/events/${id}/attempts`, signal).then((r) => r.data);

export const retryEvent = (api: Api, id: string) =>
  api.post<{ data: RetriedEvent }>(`/api/v1/events/${id}/retry`).then((r) => r.data);

/** Retries what the same filters select; the server answers how many deliveries it made due. */
export const retryEvents = (api: Api, filters: EventFilters) =>
  api
    .post<{ data: { requeued: number } }>(
      "/api/v1/events/retry",
      Object.fromEntries(filterQuery(filters)),
    )
    .then((r) => r.data);

/** Names for the ids in the list and the filters: one call each, never one per row. */
export const listSourceRefs = (api: Api, signal?: AbortSignal) =>
  api.get<{ data: SourceRef[] }>("/api/v1/sources", signal).then((r) => r.data);

export const listBridgeRefs = (api: Api, signal?: AbortSignal) =>
  api.get<{ data: BridgeRef[] }>("/api/v1/bridges", signal).then((r) => r.data);
