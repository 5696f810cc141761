import { type PageInfo, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import { notFound } from "../shared/errors.ts";
import type { CapturedRequest } from "./capture.model.ts";
import type { CaptureStore } from "./capture.store.ts";
import { isFiltered, NO_FILTER, type RequestFilter } from "./request-filter.model.ts";

/**
 * Reading stored requests. Which endpoint a caller may read is the endpoints room's call, made
 * through the port `openEndpoint` (a 404 `AppError` when the caller may not).
 */
export interface RequestsDeps {
  requests: Pick<CaptureStore, "count" | "listPage" | "countMatching" | "listMatching" | "find">;
}

/** One page of requests, newest first, with the numbers of the envelope. */
export interface RequestPage {
  items: CapturedRequest[];
  info: PageInfo;
}

/** A page of one endpoint's requests, optionally filtered (decisions.md §14; the endpoint already opened by the caller). */
export async function listRequests(
  input: { endpointId: string; page: PageRequest; filter?: RequestFilter },
  deps: RequestsDeps,
): Promise<RequestPage> {
  const { endpointId, page } = input;
  const filter = input.filter ?? NO_FILTER;
  if (isFiltered(filter)) {
    const total = await deps.requests.countMatching(endpointId, filter);
    const items = await deps.requests.listMatching(endpointId, filter, page.offset, page.pageSize);
    return { items, info: pageInfo(page, total) };
  }
  const total = await deps.requests.count(endpointId);
  const items = await deps.requests.listPage(endpointId, page.offset, page.pageSize);
  return { items, info: pageInfo(page, total) };
}

/** One stored request of the endpoint; 404 for any other id. */
export async function getRequest(
  input: { endpointId: string; requestId: string },
  deps: RequestsDeps,
): Promise<CapturedRequest> {
  const request = await deps.requests.find(input.endpointId, input.requestId);
  if (!request) throw notFound();
  return request;
}

/** What emptying an endpoint borrows: the endpoints room's mark, and the drain. */
export interface EmptyDeps {
  /** Hides every request stored until now from every reader; false when the endpoint is gone. */
  clearRequests(endpointId: string): Promise<boolean>;
  /** Starts draining the hidden requests (and their forwards) in the background. */
  wakeDrain(): void;
}

/**
 * Empties an endpoint (decisions.md §6): one short write makes it empty for every reader at
 * once; its stored requests and their forwards are drained in bounded batches afterwards. The
 * endpoint stays, and what it captures from now on is shown as usual.
 */
export async function emptyEndpoint(input: { endpointId: string }, deps: EmptyDeps): Promise<void> {
  if (!(await deps.clearRequests(input.endpointId))) throw notFound();
  deps.wakeDrain();
}
