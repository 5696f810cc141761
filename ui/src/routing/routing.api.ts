/** Every call the sources, bridges, destinations and secrets screens make, and their shapes. */
import type { DestinationType } from "../../../src/routing/destinations.model.ts";
import type {
  DestinationView,
  presentBridge,
  presentSource,
} from "../../../src/routing/routing.present.ts";
import type { SecretView } from "../../../src/secrets/secrets.service.ts";
import type { Api } from "../lib/api.ts";

export type Source = ReturnType<typeof presentSource>;
export type Bridge = ReturnType<typeof presentBridge>;
export type Destination = DestinationView;
export type { DestinationType };
export type Secret = SecretView;
export type DedupConfig = NonNullable<Source["deduplication_config"]>;
export interface SourceStats {
  total_requests: number;
  duplicates_rejected: number;
  duplicate_rate: number;
  period: string;
}

const data = <T>(p: Promise<{ data: T }>) => p.then((r) => r.data);

export const listSources = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: Source[] }>("/api/v1/sources", signal));
export const getSource = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: Source }>(`/api/v1/sources/${id}`, signal));
/** The stats answer is the bare object of the interface, no `data` envelope. */
export const getSourceStats = (api: Api, id: string, signal?: AbortSignal) =>
  api.get<SourceStats>(`/api/v1/sources/${id}/stats?period=24h`, signal);
export const createSource = (api: Api, body: { name: string }) =>
  data(api.post<{ data: Source }>("/api/v1/sources", body));
export const setDedup = (api: Api, id: string, config: unknown) =>
  data(api.patch<{ data: Source }>(`/api/v1/sources/${id}`, { deduplication_config: config }));
export const setVerification = (api: Api, id: string, verification: unknown) =>
  data(api.patch<{ data: Source }>(`/api/v1/sources/${id}`, { verification }));
export const deleteSource = (api: Api, id: string) => api.delete(`/api/v1/sources/${id}`);

export const listBridges = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: Bridge[] }>("/api/v1/bridges", signal));
export const getBridge = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: Bridge }>(`/api/v1/bridges/${id}`, signal));
export const createBridge = (
  api: Api,
  body: { name: string; source_id?: string; source?: { name: string; type: "webhook" } },
) => data(api.post<{ data: Bridge }>("/api/v1/bridges", { ...body, destinations: [] }));
export const setBridgeStatus = (api: Api, id: string, status: "active" | "paused") =>
  data(api.patch<{ data: Bridge }>(`/api/v1/bridges/${id}`, { status }));
export const deleteBridge = (api: Api, id: string) => api.delete(`/api/v1/bridges/${id}`);

export const createDestination = (api: Api, bridgeId: string, body: Record<string, unknown>) =>
  data(api.post<{ data: Destination }>(`/api/v1/bridges/${bridgeId}/destinations`, body));
export const updateDestination = (
  api: Api,
  bridgeId: string,
  id: string,
  body: Record<string, unknown>,
) => data(api.patch<{ data: Destination }>(`/api/v1/bridges/${bridgeId}/destinations/${id}`, body));
export const deleteDestination = (api: Api, bridgeId: string, id: string) =>
  api.delete(`/api/v1/bridges/${bridgeId}/destinations/${id}`);
export const rotateSigningSecret = (api: Api, bridgeId: string, id: string) =>
  data(
    api.post<{ data: { signing_secret: string } }>(
      `/api/v1/bridges/${bridgeId}/destinations/${id}/rotate-secret`,
    ),
  );

export const listSecrets = (api: Api, signal?: AbortSignal) =>
  data(api.get<{ data: Secret[] }>("/api/v1/secrets", signal));
export const createSecret = (api: Api, body: { name: string; value: string }) =>
  data(api.post<{ data: Secret }>("/api/v1/secrets", body));
export const replaceSecret = (api: Api, name: string, value: string) =>
  data(api.put<{ data: Secret }>(`/api/v1/secrets/${encodeURIComponent(name)}`, { value }));
export const deleteSecret = (api: Api, name: string) =>
  api.delete(`/api/v1/secrets/${encodeURIComponent(name)}`);

export interface FilterCheck {
  valid: true;
  results: {
    event_id: string;
    created_at: string;
    matched: boolean;
    failed: { filter: number; path: string } | null;
    over_budget?: true;
  }[];
}
/** Validates a draft filter list and, with `event_id` or `source_id`, tries it on events. */
export const testFilters = (
  api: Api,
  body: { filters: unknown[]; event_id?: string; source_id?: string; limit?: number },
  signal?: AbortSignal,
) => data(api.post<{ data: FilterCheck }>("/api/v1/filters/test", body, signal));

export interface CheckedRequest {
  headers?: Record<string, string>;
  query?: Record<string, string>;
  body?: string;
}
export interface DedupCheck {
  duplicate: boolean;
  enabled: boolean;
  key_a: string;
  key_b: string;
  window_seconds: number;
}
/** Would `a` and `b` be duplicates under the source's settings, or the draft `settings`? */
export const checkDuplicates = (
  api: Api,
  sourceId: string,
  body: { a: CheckedRequest; b: CheckedRequest; settings?: unknown },
  signal?: AbortSignal,
) => data(api.post<{ data: DedupCheck }>(`/api/v1/sources/${sourceId}/dedup/check`, body, signal));

/** What the dedup check needs of a recent event: its request as received. */
export interface RecentEvent {
  id: string;
  created_at: string;
  request: {
    headers: Record<string, string>;
    query: Record<string, string>;
    body: string;
    body_encoding: "utf8" | "base64";
  };
}
/** A source's latest events, newest first (bodies cut at 64 KiB, as every list cuts them). */
export const recentEvents = (api: Api, sourceId: string, signal?: AbortSignal) =>
  data(
    api.get<{ data: RecentEvent[] }>(
      `/api/v1/events?source_id=${encodeURIComponent(sourceId)}&page_size=10`,
      signal,
    ),
  );
