import type { ForwardRecord } from "./forwards.model.ts";

/** A forward record as the API shows it (decisions.md §6). */
export function presentForward(record: ForwardRecord) {
  return {
    id: record.id,
    request_id: record.requestId,
    url: record.url,
    method: record.method,
    status_code: record.statusCode,
    response_headers: record.responseHeaders,
    response_body: record.responseBody,
    latency_ms: record.latencyMs,
    error: record.error,
    attempt: record.attempt,
    created_at: record.createdAt,
  };
}

/** A forward record as answered; the web UI reads this type. */
export type ForwardJson = ReturnType<typeof presentForward>;
