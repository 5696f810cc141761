import { type PageInfo, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import { endpointErrors } from "../endpoints/endpoints.errors.ts";
import type { EndpointsRepo } from "../endpoints/endpoints.repo.ts";
import { requireEndpoint } from "../endpoints/endpoints.service.ts";
import type { CapturedRequest } from "./capture.model.ts";
import type { RequestsRepo } from "./requests.repo.ts";

export interface RequestsDeps {
  endpoints: EndpointsRepo;
  requests: RequestsRepo;
}

/** An endpoint of the caller's organization, addressed by id. */
export interface EndpointRef {
  organizationId: string;
  endpointId: string;
}

/** One page of requests, newest first, with the numbers of the envelope. */
export interface RequestPage {
  items: CapturedRequest[];
  info: PageInfo;
}

/** A page of the endpoint's stored requests; 404 when the endpoint is not the organization's. */
export function listRequests(
  input: EndpointRef & { page: PageRequest },
  deps: RequestsDeps,
): RequestPage {
  const endpoint = requireEndpoint(input.organizationId, input.endpointId, {
    repo: deps.endpoints,
  });
  return pageOfEndpoint(endpoint.id, input.page, deps.requests);
}

/** A page of one endpoint's requests (the endpoint already checked by the caller). */
export function pageOfEndpoint(
  endpointId: string,
  page: PageRequest,
  requests: RequestsRepo,
): RequestPage {
  const total = requests.count(endpointId);
  const items = requests.listPage(endpointId, page.offset, page.pageSize);
  return { items, info: pageInfo(page, total) };
}

/** One stored request of the organization's endpoint; 404 for any other. */
export function getRequest(
  input: EndpointRef & { requestId: string },
  deps: RequestsDeps,
): CapturedRequest {
  requireEndpoint(input.organizationId, input.endpointId, { repo: deps.endpoints });
  const request = deps.requests.find(input.endpointId, input.requestId);
  if (!request) throw endpointErrors.notFound();
  return request;
}

/** Deletes every stored request of the endpoint (and their forwards); the endpoint stays. */
export function emptyEndpoint(input: EndpointRef, deps: RequestsDeps): number {
  requireEndpoint(input.organizationId, input.endpointId, { repo: deps.endpoints });
  return deps.requests.deleteForEndpoint(input.endpointId);
}
