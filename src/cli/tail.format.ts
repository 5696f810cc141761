import type { StoredRequest } from "./tail.api.ts";
import type { ForwardResult } from "./tail.forward.ts";
import type { PushedRequest } from "./tail.stream.ts";

/** One request as `weir tail` reports it: what was pushed, the stored copy, the forward. */
export interface TailedRequest {
  pushed: PushedRequest;
  /** Null when the request is no longer stored (or was not fetched). */
  stored: StoredRequest | null;
  forward: ForwardResult | null;
}

/** `12:04:05 POST /hooks/github?x=1 1.2 KiB 200 → 204 in 12 ms` */
export function requestLine({ pushed, stored, forward }: TailedRequest): string {
  const time = new Date(pushed.timestamp).toTimeString().slice(0, 8);
  const path = stored
    ? `${stored.path || "/"}${stored.query_string ? `?${stored.query_string}` : ""}`
    : "?";
  const size = formatBytes(stored?.size ?? pushed.body_size ?? pushed.body.length);
  const line = `${time} ${pushed.method} ${path} ${size} ${pushed.status}`;
  if (!forward) return line;
  const answer = forward.status === null ? `failed: ${forward.error}` : String(forward.status);
  return `${line} → ${answer} in ${forward.latencyMs} ms`;
}

/** The JSON line of `--json`: the request as stored (or as pushed), plus the forward's outcome. */
export function requestJson({ pushed, stored, forward }: TailedRequest): string {
  return JSON.stringify({
    request_id: pushed.request_id,
    endpoint_id: pushed.endpoint_id,
    method: pushed.method,
    path: stored?.path ?? null,
    query_string: stored?.query_string ?? null,
    headers: stored?.headers ?? pushed.headers,
    body: stored?.body ?? pushed.body,
    body_encoding: stored?.body_encoding ?? pushed.body_encoding ?? "utf8",
    size: stored?.size ?? null,
    status: pushed.status,
    timestamp: pushed.timestamp,
    ...(forward
      ? {
          forward: {
            url: forward.url,
            status: forward.status,
            latency_ms: forward.latencyMs,
            error: forward.error,
          },
        }
      : {}),
  });
}

/** Bytes as `512 B`, `1.2 KiB`, `3.4 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
