import type { CustomResponse } from "./endpoints.model.ts";

/** The custom response stored in an endpoint's response_* columns; null means the default answer. */
export function customResponseOf(columns: {
  responseStatus: number | null;
  responseHeaders: string | null;
  responseBody: string | null;
  responseDelayMs: number;
}): CustomResponse | null {
  if (columns.responseStatus === null) return null;
  return {
    status: columns.responseStatus,
    headers: JSON.parse(columns.responseHeaders ?? "{}") as Record<string, string>,
    body: columns.responseBody ?? "",
    delayMs: columns.responseDelayMs,
  };
}

/** An endpoint's custom response as its response_* columns (null: the default answer). */
export function responseColumns(response: CustomResponse | null) {
  return {
    responseStatus: response?.status ?? null,
    responseHeaders: response ? JSON.stringify(response.headers) : null,
    responseBody: response?.body ?? null,
    responseDelayMs: response?.delayMs ?? 0,
  };
}
