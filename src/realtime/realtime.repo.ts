import { createRequestsRepo } from "../capture/requests.repo.ts";
import type { Db } from "../db/db.open.ts";
import { createEndpointsRepo } from "../endpoints/endpoints.repo.ts";
import type { RealtimeStore } from "./realtime.channel.service.ts";

/**
 * What the realtime room reads, through the rooms that own the tables: the organization-scoped
 * endpoint lookup of endpoints, and the catch-up read of capture (ascending ids).
 */
export function createRealtimeStore(db: Db): RealtimeStore {
  const endpoints = createEndpointsRepo(db);
  const requests = createRequestsRepo(db);
  return {
    findEndpoint: (organizationId, endpointId) =>
      endpoints.findInOrganization(endpointId, organizationId),
    listAfter: (endpointId, afterRequestId, limit) =>
      requests.listAfter(endpointId, afterRequestId, limit),
  };
}
