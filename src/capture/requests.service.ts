import { type PageInfo, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import { notFound } from "../shared/errors.ts";
import type { CapturedRequest } from "./capture.model.ts";
import type { RequestsRepo } from "./requests.repo.ts";

/**
 * Reading stored requests. Which endpoint a caller may read is the endpoints room's call, made
 * through the port `openEndpoint` (a 404 `AppError` when the caller may not).
 */
export interface RequestsDeps {
  requests: RequestsRepo;
}

/** One page of requests, newest first, with the numbers of the envelope. */
export interface RequestPage {
  items: CapturedRequest[];
  info: PageInfo;
}

/** A page of one endpoint's requests (the endpoint already opened by the caller). */
export function listRequests(
  input: { endpointId: string; page: PageRequest },
  deps: RequestsDeps,
): RequestPage {
  const total = deps.requests.count(input.endpointId);
  const items = deps.requests.listPage(input.endpointId, input.page.offset, input.page.pageSize);
  return { items, info: pageInfo(input.page, total) };
}

/** One stored request of the endpoint; 404 for any other id. */
export function getRequest(
  input: { endpointId: string; requestId: string },
  deps: RequestsDeps,
): CapturedRequest {
  const request = deps.requests.find(input.endpointId, input.requestId);
  if (!request) throw notFound();
  return request;
}

/** Deletes every stored request of the endpoint (and their forwards); the endpoint stays. */
export function emptyEndpoint(input: { endpointId: string }, deps: RequestsDeps): number {
  return deps.requests.deleteForEndpoint(input.endpointId);
}
