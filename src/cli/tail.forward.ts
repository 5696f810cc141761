import { HOP_BY_HOP_HEADERS as HOP_BY_HOP, LOOP_GUARD_HEADER } from "../capture/forwards.model.ts";
import { bodyBytes, type StoredRequest } from "./tail.api.ts";

/** The loop guard Weir's own forwards carry (decisions.md §6): such a request is never re-sent. */
export const FORWARDED_HEADER = LOOP_GUARD_HEADER;

/** What the local app answered to one re-sent request. */
export interface ForwardResult {
  url: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * The local URL for a captured request: the target's path, then the sub-path captured after
 * the slug, then the captured query (after the target's own, if it has one). Nothing is
 * decoded or re-encoded.
 */
export function forwardUrl(
  target: string,
  request: Pick<StoredRequest, "path" | "query_string">,
): string {
  const url = new URL(target);
  const basePath = url.pathname.replace(/\/+$/, "");
  const path = `${basePath}${request.path}` || "/";
  const queries = [url.search.slice(1), request.query_string].filter((q) => q !== "");
  const query = queries.length > 0 ? `?${queries.join("&")}` : "";
  return `${url.origin}${path}${query}`;
}

/** Request headers to re-send: as captured, in order, without hop-by-hop ones, plus the loop guard. */
export function forwardHeaders(
  request: Pick<StoredRequest, "raw_headers" | "headers">,
): [string, string][] {
  const named = (request.headers.connection ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  const kept = request.raw_headers.filter(([name]) => {
    const lower = name.toLowerCase();
    return !HOP_BY_HOP.has(lower) && !named.includes(lower) && lower !== FORWARDED_HEADER;
  });
  return [...kept, [FORWARDED_HEADER, "1"]];
}

/** Re-sends a captured request to the local app; never throws, the failure is in the result. */
export async function forwardRequest(
  target: string,
  request: StoredRequest,
  options: { fetch?: typeof fetch; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<ForwardResult> {
  const url = forwardUrl(target, request);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const noBody = request.method === "GET" || request.method === "HEAD";
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 30_000)];
  if (options.signal) signals.push(options.signal);
  try {
    const response = await (options.fetch ?? fetch)(url, {
      method: request.method,
      headers: forwardHeaders(request),
      body: noBody ? undefined : bodyBytes(request),
      redirect: "manual",
      signal: AbortSignal.any(signals),
    });
    await response.arrayBuffer();
    return { url, status: response.status, latencyMs: elapsed(), error: null };
  } catch (error) {
    return { url, status: null, latencyMs: elapsed(), error: (error as Error).message };
  }
}
