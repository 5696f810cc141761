import type { CapturedRequest } from "./capture.model.ts";

/** Marks a request Weir sent; a captured request carrying it is never forwarded again (loop guard). */
export const LOOP_GUARD_HEADER = "x-weir-forwarded";
/** Tries per captured request: the first plus two retries (docs/api.md, Forwards). */
export const MAX_FORWARD_ATTEMPTS = 3;
/** Wait before retry n (index 0: before attempt 2). */
export const FORWARD_RETRY_DELAYS_MS = [10_000, 60_000] as const;
/** How much of a downstream answer is kept (decisions.md §6). */
export const RESPONSE_BODY_LIMIT = 65_536;

/**
 * Headers that describe one connection, not the request (RFC 9110 §7.6.1), plus Host and the
 * length: whoever re-sends a captured request (forwards, replay, `weir tail`) drops them.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

const DROPPED = new Set([...HOP_BY_HOP_HEADERS, LOOP_GUARD_HEADER]);

/** One try to re-send a captured request, as stored and listed (decisions.md §6). */
export interface ForwardRecord {
  id: string;
  requestId: string;
  url: string;
  method: string;
  /** null when no answer came (connection error, timeout). */
  statusCode: number | null;
  responseHeaders: Record<string, string> | null;
  /** The first 64 KiB of the answer, as text. */
  responseBody: string | null;
  latencyMs: number | null;
  error: string | null;
  attempt: number;
  createdAt: string;
}

/** True when a capture should be re-sent: the endpoint has a target and the loop guard is absent. */
export function shouldForward(request: CapturedRequest, forwardUrl: string | null): boolean {
  return forwardUrl !== null && forwardUrl !== "" && !(LOOP_GUARD_HEADER in request.headers);
}

/**
 * The headers to send on: the received pairs in order, minus hop-by-hop headers (and any named
 * by `Connection`), `proxy-*`, Host and Content-Length; plus `x-weir-forwarded: 1`.
 */
export function forwardHeaders(rawHeaders: [string, string][]): [string, string][] {
  const named = new Set<string>();
  for (const [name, value] of rawHeaders) {
    if (name.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) named.add(token.trim().toLowerCase());
  }
  const kept = rawHeaders.filter(([name]) => {
    const lower = name.toLowerCase();
    return !DROPPED.has(lower) && !lower.startsWith("proxy-") && !named.has(lower);
  });
  kept.push([LOOP_GUARD_HEADER, "1"]);
  return kept;
}

/**
 * Where a try goes: the target URL with the captured sub-path appended to its path and the
 * captured query appended to its query (`https://t/in?a=1` + `/x` + `b=2` → `https://t/in/x?a=1&b=2`).
 */
export function forwardTarget(base: string, subPath: string, queryString: string): string {
  const url = new URL(base);
  const credentials = url.username
    ? `${url.username}${url.password ? `:${url.password}` : ""}@`
    : "";
  const path = subPath ? url.pathname.replace(/\/+$/, "") + subPath : url.pathname;
  const query = [url.search.slice(1), queryString].filter(Boolean).join("&");
  return `${url.protocol}//${credentials}${url.host}${path}${query ? `?${query}` : ""}`;
}

/** Retry after a try when nothing answered, or the answer was 408, 429 or 5xx. */
export function isRetryable(record: Pick<ForwardRecord, "statusCode">): boolean {
  const status = record.statusCode;
  return status === null || status === 408 || status === 429 || status >= 500;
}

/** Milliseconds to wait before the try after `attempt`, or null when no try is left. */
export function retryDelayAfter(attempt: number): number | null {
  if (attempt >= MAX_FORWARD_ATTEMPTS) return null;
  return FORWARD_RETRY_DELAYS_MS[attempt - 1] ?? null;
}

/** GET and HEAD cannot carry a body through fetch; every other method sends the bytes as received. */
export function canCarryBody(method: string): boolean {
  const upper = method.toUpperCase();
  return upper !== "GET" && upper !== "HEAD";
}
