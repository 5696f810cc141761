import type { Db } from "../db/db.open.ts";
import { createStatusPagesRepo, uniqueViolation } from "./status-pages.repo.ts";
import type { PageWriteOutcome, StatusPagesStore } from "./status-pages.store.ts";

/** Runs a page write, naming the unique column it collided with as the service reports it. */
function outcomeOf(write: () => void): PageWriteOutcome {
  try {
    write();
    return "ok";
  } catch (error) {
    if (uniqueViolation(error, "slug")) return "slug_taken";
    if (uniqueViolation(error, "custom_domain")) return "domain_taken";
    throw error;
  }
}

/** The status pages repo as a StatusPagesStore: same statements, answers wrapped in promises. */
export function createStatusPagesSqliteStore(db: Db): StatusPagesStore {
  const repo = createStatusPagesRepo(db);
  return {
    insert: async (page) => outcomeOf(() => repo.insert(page)),
    update: async (page) => outcomeOf(() => repo.update(page)),
    find: async (organizationId, id) => repo.find(organizationId, id),
    findBySlug: async (slug) => repo.findBySlug(slug),
    findByDomain: async (domain) => repo.findByDomain(domain),
    list: async (organizationId) => repo.list(organizationId),
    remove: async (organizationId, id) => repo.remove(organizationId, id),
    monitors: async (pageId) => repo.monitors(pageId),
    attach: async (pageId, monitor) => repo.attach(pageId, monitor),
    detach: async (pageId, monitorId) => repo.detach(pageId, monitorId),
    components: async (pageId) => repo.components(pageId),
    insertComponent: async (component) => repo.insertComponent(component),
    removeComponent: async (pageId, id) => repo.removeComponent(pageId, id),
  };
}
