import type { CapturedRequest, CaptureTarget } from "../capture/capture.model.ts";
import { endToEndHeaders, type HeaderPair } from "../http/outbound/outbound.headers.ts";
import type { NewDelivery } from "./delivery.ports.ts";

/** Marks a request Weir sent; a captured request carrying it is never forwarded again (loop guard). */
export const LOOP_GUARD_HEADER = "x-weir-forwarded";
/** Retries of a forward after its first try (docs/api.md, Forwards): three tries at most. */
export const FORWARD_MAX_RETRIES = 2;
/** The §8 code of a try the outbound address policy refused; a record's error starts with it. */
export const BLOCKED_ADDRESS = "blocked_address";
/** How much of a downstream answer is kept (decisions.md §6). */
export const RESPONSE_BODY_LIMIT = 65_536;

/** The one hop-by-hop list lives with the outbound sender, which drops them from every send. */
export { HOP_BY_HOP_HEADERS } from "../http/outbound/outbound.headers.ts";

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
 * The headers to send on, for forwards, replays and `weir tail` alike: the received pairs in
 * order, minus hop-by-hop headers (and any named by `Connection`), `proxy-*`, Host and
 * Content-Length; plus `x-weir-forwarded: 1` (the loop guard, never duplicated).
 */
export function forwardHeaders(rawHeaders: readonly HeaderPair[]): [string, string][] {
  const kept = endToEndHeaders(rawHeaders).filter(
    ([name]) => name.toLowerCase() !== LOOP_GUARD_HEADER,
  ) as [string, string][];
  kept.push([LOOP_GUARD_HEADER, "1"]);
  return kept;
}

/**
 * Where a try goes: the target URL with the captured sub-path appended to its path and the
 * captured query appended to its query (`https://t/in?a=1` + `/x` + `b=2` → `https://t/in/x?a=1&b=2`).
 * Credentials stay in the URL: the sender turns them into `Authorization: Basic` and records the
 * URL without them.
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

/**
 * Retry after a try when nothing answered, or the answer was 408, 429 or 5xx. A try the outbound
 * address policy refused is not retried: the same target would be refused again.
 */
export function isRetryable(
  record: Pick<ForwardRecord, "statusCode"> & { error?: string | null },
): boolean {
  if (record.error?.startsWith(`${BLOCKED_ADDRESS}:`)) return false;
  const status = record.statusCode;
  return status === null || isRetryableStatus(status);
}

/** The answers after which a forward is tried again: 408, 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** A stored capture and its endpoint, as capture's batch hands them over. */
export interface ForwardCause {
  request: CapturedRequest;
  endpoint: CaptureTarget;
}

/** The breaker and fairness key of an endpoint's forwards. */
export const forwardKey = (endpointId: string) => `forward:${endpointId}`;

/** The outbox rows for the captures of a batch that are to be forwarded. */
export function forwardDeliveries(captures: readonly ForwardCause[]): NewDelivery[] {
  return captures
    .filter(({ request, endpoint }) => shouldForward(request, endpoint.forwardUrl))
    .map(({ request, endpoint }) => ({
      kind: "forward",
      organizationId: endpoint.organizationId,
      subjectId: request.id,
      destinationKey: forwardKey(endpoint.id),
      maxRetries: FORWARD_MAX_RETRIES,
    }));
}

/**
 * Whether the captured body travels on: always, byte-exact (a GET with a body keeps it), except
 * for HEAD, whose body no server reads.
 */
export function canCarryBody(method: string): boolean {
  return method.toUpperCase() !== "HEAD";
}
