import type { Db } from "../db/db.open.ts";
import type { Endpoint } from "./endpoints.model.ts";
import { createEndpointsRepo, type EndpointsRepo } from "./endpoints.repo.ts";
import type { EndpointsStore, InsertOutcome, NewEndpoint } from "./endpoints.store.ts";

/**
 * The endpoints store on SQLite: the repo's synchronous statements behind the store's promises.
 * The repo is returned too, for the one port that runs inside capture's drain transaction.
 */
export function createEndpointsSqliteStore(db: Db): {
  store: EndpointsStore;
  repo: EndpointsRepo;
} {
  const repo = createEndpointsRepo(db);
  const store: EndpointsStore = {
    findInOrganization: async (id, organizationId) => repo.findInOrganization(id, organizationId),
    findById: async (id) => repo.findById(id),
    findBySlug: async (slug) => repo.findBySlug(slug),
    listForOrganization: async (organizationId) => repo.listForOrganization(organizationId),
    // An organization's count and insert share one transaction; the anonymous count never did
    // (one process, synchronous statements: nothing comes between them).
    insert: async (draft) =>
      draft.cap && "organizationId" in draft.cap
        ? repo.transaction(() => insertCounted(repo, draft))
        : insertCounted(repo, draft),
    update: async (id, organizationId, changes) => repo.update(id, organizationId, changes),
    delete: async (id, organizationId, nowIso) => repo.delete(id, organizationId, nowIso),
    listExpiredAnonymous: async (nowIso, limit) => repo.listExpiredAnonymous(nowIso, limit),
    deleteAnonymous: async (id, nowIso) => repo.deleteAnonymous(id, nowIso),
    clearRequests: async (id, freshId, nowIso) => repo.clearRequests(id, freshId, nowIso),
    listDraining: async (limit) => repo.listDraining(limit),
    stats: async (endpointIds) => repo.stats(endpointIds),
  };
  return { store, repo };
}

function insertCounted(repo: EndpointsRepo, draft: NewEndpoint): InsertOutcome {
  const { cap } = draft;
  if (cap) {
    const count =
      "organizationId" in cap
        ? repo.countForOrganization(cap.organizationId)
        : repo.countLiveAnonymous(cap.anonymousAliveAt);
    if (count >= cap.limit) return { refused: "limit_reached" };
  }
  for (let attempt = 0; ; attempt++) {
    const slug = draft.slugFor(attempt);
    if (slug === null) return { refused: "slug_taken" };
    const row: Endpoint = { ...draft.endpoint, slug };
    if (repo.insertUnlessSlugTaken(row)) return { inserted: row };
  }
}
