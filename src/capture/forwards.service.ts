import { type PageRequest, pageInfo } from "../db/db.pagination.ts";
import { endpointErrors } from "../endpoints/endpoints.errors.ts";
import { requireEndpoint } from "../endpoints/endpoints.service.ts";
import { isHttpUrl } from "../endpoints/endpoints.validate.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { CapturedRequest } from "./capture.model.ts";
import {
  canCarryBody,
  type ForwardRecord,
  forwardHeaders,
  forwardTarget,
  RESPONSE_BODY_LIMIT,
} from "./forwards.model.ts";
import type { ForwardsRepo } from "./forwards.repo.ts";
import type { EndpointRef, RequestsDeps } from "./requests.service.ts";

export interface SendDeps {
  forwards: ForwardsRepo;
  clock: Clock;
  ids: Ids;
  fetch: typeof fetch;
  logger: Logger;
  /** A slower answer is recorded as a timeout. */
  timeoutMs: number;
}

/**
 * One try: sends the request to `url` (already the full target) and records it, whatever
 * happens. Never throws for a downstream failure: the error is what the record is for.
 */
export async function sendForward(
  input: { request: CapturedRequest; url: string; attempt: number },
  deps: SendDeps,
): Promise<ForwardRecord> {
  const { request, url, attempt } = input;
  const started = deps.clock.now();
  const record: ForwardRecord = {
    id: deps.ids.uuid(),
    requestId: request.id,
    url,
    method: request.method,
    statusCode: null,
    responseHeaders: null,
    responseBody: null,
    latencyMs: null,
    error: null,
    attempt,
    createdAt: isoAt(started),
  };
  try {
    const response = await deps.fetch(url, {
      method: request.method,
      headers: forwardHeaders(request.rawHeaders),
      body: canCarryBody(request.method) ? request.body : undefined,
      redirect: "manual",
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    record.statusCode = response.status;
    record.responseHeaders = Object.fromEntries(response.headers);
    record.responseBody = await readLimited(response, RESPONSE_BODY_LIMIT);
  } catch (error) {
    record.error = describeFailure(error, deps.timeoutMs);
  }
  record.latencyMs = Math.max(0, deps.clock.now() - started);
  deps.forwards.insert(record);
  return record;
}

/** The first `limit` bytes of a body as text; the rest is never read. */
async function readLimited(response: Response, limit: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (size >= limit) await reader.cancel().catch(() => {});
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  return new TextDecoder().decode(bytes);
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string })?.name;
  if (name === "TimeoutError" || name === "AbortError") return `timeout after ${timeoutMs} ms`;
  const code = (error as { code?: string })?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code && !message.startsWith(code) ? `${code}: ${message}` : message;
}

export interface ForwardsDeps extends RequestsDeps {
  send: SendDeps;
}

/**
 * Re-sends a stored request now (decisions.md §6 replay): to `url`, else the endpoint's
 * forward_url (422 when neither), with the captured sub-path and query appended. One try.
 */
export async function replayRequest(
  input: EndpointRef & { requestId: string; url?: unknown },
  deps: ForwardsDeps,
): Promise<ForwardRecord> {
  const endpoint = requireEndpoint(input.organizationId, input.endpointId, {
    repo: deps.endpoints,
  });
  const request = deps.requests.find(endpoint.id, input.requestId);
  if (!request) throw endpointErrors.notFound();
  const base = replayBase(input.url, endpoint.forwardUrl);
  const url = forwardTarget(base, request.path, request.queryString);
  return sendForward({ request, url, attempt: 1 }, deps.send);
}

function replayBase(url: unknown, forwardUrl: string | null): string {
  if (url === undefined || url === null || url === "") {
    if (forwardUrl) return forwardUrl;
    throw endpointErrors.noForwardTarget();
  }
  if (typeof url !== "string" || !isHttpUrl(url)) {
    throw validationFailed({ url: ["must be an absolute http(s) URL"] });
  }
  return url;
}

/** A page of a stored request's tries, newest first; 404 unless the request is the organization's. */
export function listForwards(
  input: EndpointRef & { requestId: string; page: PageRequest },
  deps: ForwardsDeps,
) {
  requireEndpoint(input.organizationId, input.endpointId, { repo: deps.endpoints });
  if (!deps.requests.find(input.endpointId, input.requestId)) throw endpointErrors.notFound();
  const total = deps.send.forwards.count(input.requestId);
  const items = deps.send.forwards.listPage(
    input.requestId,
    input.page.offset,
    input.page.pageSize,
  );
  return { items, info: pageInfo(input.page, total) };
}
