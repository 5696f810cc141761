import {
  canCarryBody,
  forwardHeaders as forwardedHeaders,
  forwardTarget,
  LOOP_GUARD_HEADER,
} from "../delivery/forwards.model.ts";
import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../http/outbound/outbound.sender.ts";
import { bodyBytes, type StoredRequest } from "./tail.api.ts";

/** The loop guard Weir's own forwards carry (decisions.md §6): such a request is never re-sent. */
export const FORWARDED_HEADER = LOOP_GUARD_HEADER;

const DEFAULT_TIMEOUT_MS = 30_000;

/** What the local app answered to one re-sent request. */
export interface ForwardResult {
  url: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * The local URL for a captured request, built exactly as the server's forwards build theirs: the
 * target's path, then the sub-path captured after the slug, then the captured query (after the
 * target's own, if it has one).
 */
export function forwardUrl(
  target: string,
  request: Pick<StoredRequest, "path" | "query_string">,
): string {
  return forwardTarget(target, request.path, request.query_string);
}

/** Request headers to re-send: the same rule as the server's forwards (hop-by-hop out, loop guard in). */
export function forwardHeaders(request: Pick<StoredRequest, "raw_headers">): [string, string][] {
  return forwardedHeaders(request.raw_headers);
}

/**
 * The sender `weir tail` uses: the server's one outbound sender, with the built-in deny list
 * only (the target is on the operator's own machine; WEIR_OUTBOUND_* configure servers).
 */
export function createTailSender(timeoutMs = DEFAULT_TIMEOUT_MS): OutboundSender {
  return createOutboundSender({ policy: createOutboundPolicy({ deny: [], allow: [] }), timeoutMs });
}

/** Re-sends a captured request to the local app; never throws, the failure is in the result. */
export async function forwardRequest(
  target: string,
  request: StoredRequest,
  options: { sender?: OutboundSender; signal?: AbortSignal } = {},
): Promise<ForwardResult> {
  const sender = options.sender ?? createTailSender();
  const result = await sender.send({
    url: forwardUrl(target, request),
    method: request.method,
    headers: forwardHeaders(request),
    body: canCarryBody(request.method) ? bodyBytes(request) : null,
    signal: options.signal,
  });
  const error =
    result.status === null && result.error ? `${result.error.code}: ${result.error.message}` : null;
  return { url: result.url, status: result.status, latencyMs: result.latencyMs, error };
}
