import type { CapturedRequest } from "../capture/capture.model.ts";
import { type PageRequest, pageInfo } from "../db/db.pagination.ts";
import { endpointErrors } from "../endpoints/endpoints.errors.ts";
import type { Endpoint } from "../endpoints/endpoints.model.ts";
import { isHttpUrl } from "../endpoints/endpoints.validate.ts";
import { headerRecord } from "../http/outbound/outbound.headers.ts";
import type { OutboundSender } from "../http/outbound/outbound.model.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import { validationFailed } from "../shared/errors.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import {
  BLOCKED_ADDRESS,
  canCarryBody,
  type ForwardRecord,
  forwardHeaders,
  forwardTarget,
} from "./forwards.model.ts";
import type { ForwardsRepo } from "./forwards.repo.ts";

export interface SendDeps {
  forwards: ForwardsRepo;
  clock: Clock;
  ids: Ids;
  outbound: OutboundSender;
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
  const record = await tryForward(input, deps);
  deps.forwards.insert(record);
  return record;
}

/** One try through the outbound sender, as a forward record (not stored yet). */
async function tryForward(
  input: { request: CapturedRequest; url: string; attempt: number },
  deps: SendDeps,
): Promise<ForwardRecord> {
  const { request, url, attempt } = input;
  const createdAt = isoAt(deps.clock.now());
  const result = await deps.outbound.send({
    url,
    method: request.method,
    headers: forwardHeaders(request.rawHeaders),
    body: canCarryBody(request.method) ? request.body : null,
    timeoutMs: deps.timeoutMs,
  });
  const answered = result.status !== null;
  return {
    id: deps.ids.uuid(),
    requestId: request.id,
    url: result.url,
    method: request.method,
    statusCode: result.status,
    responseHeaders: answered ? headerRecord(result.headers) : null,
    responseBody: answered ? new TextDecoder().decode(result.body) : null,
    latencyMs: result.latencyMs,
    // The §8 code first (e.g. "blocked_address: …"); an answer's status speaks for itself.
    error: answered || !result.error ? null : `${result.error.code}: ${result.error.message}`,
    attempt,
    createdAt,
  };
}

/** What replay and the forward list borrow: the endpoint check of endpoints, the request of capture. */
export interface ForwardsDeps {
  requireEndpoint(organizationId: string, endpointId: string): Endpoint;
  findRequest(endpointId: string, requestId: string): CapturedRequest | null;
  send: SendDeps;
}

/** An endpoint of the caller's organization, addressed by id. */
export interface EndpointRef {
  organizationId: string;
  endpointId: string;
}

/**
 * Re-sends a stored request now (decisions.md §6 replay): to `url`, else the endpoint's
 * forward_url (422 when neither), with the captured sub-path and query appended. One try.
 */
export async function replayRequest(
  input: EndpointRef & { requestId: string; url?: unknown },
  deps: ForwardsDeps,
): Promise<ForwardRecord> {
  const endpoint = deps.requireEndpoint(input.organizationId, input.endpointId);
  const request = deps.findRequest(endpoint.id, input.requestId);
  if (!request) throw endpointErrors.notFound();
  const base = replayBase(input.url, endpoint.forwardUrl, deps.send.outbound);
  const url = forwardTarget(base, request.path, request.queryString);
  const record = await tryForward({ request, url, attempt: 1 }, deps.send);
  // A target the address policy refuses (by name, once resolved) is the caller's input to fix.
  if (record.error?.startsWith(`${BLOCKED_ADDRESS}:`)) {
    throw validationFailed({ url: [record.error.slice(BLOCKED_ADDRESS.length + 2)] });
  }
  deps.send.forwards.insert(record);
  return record;
}

function replayBase(url: unknown, forwardUrl: string | null, outbound: OutboundSender): string {
  if (url === undefined || url === null || url === "") {
    if (forwardUrl) return forwardUrl;
    throw endpointErrors.noForwardTarget();
  }
  if (typeof url !== "string" || !isHttpUrl(url)) {
    throw validationFailed({ url: ["must be an absolute http(s) URL"] });
  }
  const problem = outbound.urlProblem(url);
  if (problem) throw validationFailed({ url: [problem] });
  return url;
}

/** A page of a stored request's tries, newest first; 404 unless the request is the organization's. */
export function listForwards(
  input: EndpointRef & { requestId: string; page: PageRequest },
  deps: ForwardsDeps,
) {
  deps.requireEndpoint(input.organizationId, input.endpointId);
  if (!deps.findRequest(input.endpointId, input.requestId)) throw endpointErrors.notFound();
  const total = deps.send.forwards.count(input.requestId);
  const items = deps.send.forwards.listPage(
    input.requestId,
    input.page.offset,
    input.page.pageSize,
  );
  return { items, info: pageInfo(input.page, total) };
}
