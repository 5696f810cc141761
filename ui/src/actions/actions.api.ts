/** Every call the actions screen makes, and their shapes. */
import type { ActionResult, ActionType } from "../../../src/actions/actions.model.ts";
import type { presentAction } from "../../../src/actions/actions.present.ts";
import type { Api } from "../lib/api.ts";
import type { Endpoint, Page } from "../lib/types.ts";

export type Action = ReturnType<typeof presentAction>;
export type { ActionResult, ActionType };
export type ActionConfig = Record<string, unknown>;
export interface ActionBody {
  type: ActionType;
  name: string;
  config: ActionConfig;
  enabled?: boolean;
}
export interface RecentRequest {
  id: string;
  method: string;
  path: string;
  created_at: string;
}

const data = <T>(p: Promise<{ data: T }>) => p.then((r) => r.data);
const base = (endpointId: string) => `/api/v1/endpoints/${endpointId}/actions`;

export const getEndpoint = (api: Api, id: string, signal?: AbortSignal) =>
  data(api.get<{ data: Endpoint }>(`/api/v1/endpoints/${id}`, signal));
export const listActions = (api: Api, endpointId: string, signal?: AbortSignal) =>
  data(api.get<{ data: Action[] }>(base(endpointId), signal));
export const createAction = (api: Api, endpointId: string, body: ActionBody) =>
  data(api.post<{ data: Action }>(base(endpointId), body));
export const updateAction = (
  api: Api,
  endpointId: string,
  id: string,
  body: Partial<Omit<ActionBody, "type">>,
) => data(api.patch<{ data: Action }>(`${base(endpointId)}/${id}`, body));
export const deleteAction = (api: Api, endpointId: string, id: string) =>
  api.delete(`${base(endpointId)}/${id}`);
export const reorderActions = (api: Api, endpointId: string, ids: string[]) =>
  data(api.put<{ data: Action[] }>(`${base(endpointId)}/reorder`, { action_ids: ids }));
/** Runs the saved chain on a stored request with no side effect. */
export const tryActions = (api: Api, endpointId: string, requestId: string) =>
  data(api.post<{ data: ActionResult[] }>(`${base(endpointId)}/test`, { request_id: requestId }));
/** The newest captures, to pick one to try the chain on. */
export const recentRequests = (api: Api, endpointId: string, signal?: AbortSignal) =>
  api
    .get<Page<RecentRequest>>(
      `/api/v1/endpoints/${endpointId}/requests?page=1&page_size=10`,
      signal,
    )
    .then((r) => r.data);
