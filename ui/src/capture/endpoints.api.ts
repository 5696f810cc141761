import type { Api } from "../lib/api.ts";
import type { ActionResult, CustomResponse, Endpoint } from "../lib/types.ts";

/**
 * Changes through the `debug-endpoints` family's PATCH (status, forward_url, response). Its answer
 * is the bare endpoint with that family's URL shape (/debug/...), so only the changed fields are
 * taken from it; the rest of the `endpoints` family record stays.
 */
export async function patchEndpoint(
  api: Api,
  endpoint: Endpoint,
  change: {
    status?: Endpoint["status"];
    forward_url?: string | null;
    response?: CustomResponse | null;
  },
): Promise<Endpoint> {
  const updated = await api.patch<Partial<Endpoint>>(`/api/v1/debug-endpoints/${endpoint.id}`, {
    debug_endpoint: change,
  });
  const next: Endpoint = { ...endpoint };
  if (change.status !== undefined) next.status = updated?.status ?? change.status;
  if (change.forward_url !== undefined)
    next.forward_url = updated?.forward_url ?? change.forward_url;
  if (change.response !== undefined) next.response = updated?.response ?? change.response;
  return next;
}

/** Renames through the `endpoints` family (PUT), which answers `{data: endpoint}`. */
export async function renameEndpoint(
  api: Api,
  endpoint: Endpoint,
  name: string,
): Promise<Endpoint> {
  const updated = await api.put<{ data?: Endpoint } | undefined>(
    `/api/v1/endpoints/${endpoint.id}`,
    {
      debug_endpoint: { name },
    },
  );
  return { ...endpoint, ...(updated?.data ?? {}), name: updated?.data?.name ?? name };
}

/** The latest action run of a captured request (empty when no action ran). */
export const requestActionResults = (
  api: Api,
  endpointId: string,
  requestId: string,
  signal?: AbortSignal,
) =>
  api
    .get<{ data: ActionResult[] }>(
      `/api/v1/endpoints/${endpointId}/requests/${requestId}/actions`,
      signal,
    )
    .then((r) => r.data);

/** The endpoint's action names by id, so a run's results are named (none on a plan without actions). */
export const actionNames = (api: Api, endpointId: string, signal?: AbortSignal) =>
  api
    .get<{ data: { id: string; name: string }[] }>(
      `/api/v1/endpoints/${endpointId}/actions`,
      signal,
    )
    .then((r) => Object.fromEntries(r.data.map((a) => [a.id, a.name])))
    .catch((): Record<string, string> => ({}));
