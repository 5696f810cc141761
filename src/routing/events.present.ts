import { previewBody } from "../capture/requests.model.ts";
import type { SubjectAttempt } from "../delivery/delivery.ports.ts";
import type { StoredEvent } from "./events.repo.ts";
import type { RetryAction } from "./ingest.retry.ts";

/** Why a filtered event was not delivered: each destination's failing filter term. */
export function presentFilteredBy(e: StoredEvent) {
  return {
    filtered_by: (e.filteredBy ?? []).map((r) => ({
      destination_id: r.destinationId,
      filter: r.filter,
      path: r.path,
    })),
  };
}

/**
 * An event's request as lists show it (decisions.md §15): a body over 64 KiB is cut as request
 * lists cut theirs, flagged with `body_truncated` and the whole `body_size`. The row may have
 * been read cut already (`bodySize` then holds the whole size).
 */
export function presentListedRequest<R extends { body: string; body_encoding: string }>(
  request: R,
  e: StoredEvent,
) {
  const preview = previewBody(e.body, e.bodySize ?? e.body.byteLength);
  if (!preview.truncated) return request;
  return {
    ...request,
    ...(preview.text === null
      ? { body: Buffer.from(preview.bytes).toString("base64"), body_encoding: "base64" as const }
      : { body: preview.text, body_encoding: "utf8" as const }),
    body_truncated: true,
    body_size: preview.size,
  };
}

/** One attempt of an event's timeline (decisions.md §15). */
export function presentAttempt(a: SubjectAttempt) {
  return {
    id: a.id,
    delivery_id: a.deliveryId,
    destination_id: a.destinationKey,
    attempt_number: a.attempt,
    status_code: a.statusCode,
    response_body: a.responseBody,
    latency_ms: a.latencyMs,
    error_type: a.errorType,
    error_code: a.errorCode,
    error_message: a.errorMessage,
    created_at: a.createdAt,
  };
}

/** The event's deliveries, each with what the retry did to it. */
export function withRetryActions<D extends { id: string }>(
  deliveries: D[],
  actions: ReadonlyMap<string, RetryAction>,
) {
  return deliveries.map((d) => ({ ...d, action: actions.get(d.id) ?? ("unchanged" as const) }));
}
