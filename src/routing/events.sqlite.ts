import type { Db } from "../db/db.open.ts";
import { createEventsRepo } from "./events.repo.ts";
import type { EventsStore } from "./events.store.ts";

/** The SQLite events repo as an EventsStore; a write runs in the open transaction or its own. */
export function createEventsSqliteStore(db: Db): EventsStore {
  const repo = createEventsRepo(db);
  return {
    insert: async (_tx, event, bridgeIds, open) => db.tx(() => repo.insert(event, bridgeIds, open)),
    find: async (organizationId, id) => repo.find(organizationId, id),
    findById: async (id) => repo.findById(id),
    statusReason: async (id) => repo.statusReason(id),
    bridgesOf: async (eventIds) => repo.bridgesOf(eventIds),
    page: async (organizationId, query, limit, offset) =>
      repo.page(organizationId, query, limit, offset),
    retryBatch: async (organizationId, query, cursor, limit) =>
      repo.retryBatch(organizationId, query, cursor, limit),
    storedBytes: async (organizationId) => repo.storedBytes(organizationId),
    tenantsWithEvents: async () => repo.tenantsWithEvents(),
    deleteBefore: async (_tx, organizationId, beforeIso, limit) =>
      db.tx(() => repo.deleteBefore(organizationId, beforeIso, limit)),
    setStatus: async (_tx, id, status) => db.tx(() => repo.setStatus(id, status)),
    reopen: async (_tx, id, count) => db.tx(() => repo.reopen(id, count)),
    reopenMany: async (_tx, counts) =>
      db.tx(() => {
        for (const [id, count] of counts) repo.reopen(id, count);
      }),
    replaceBridges: async (_tx, eventId, bridgeIds) =>
      db.tx(() => repo.replaceBridges(eventId, bridgeIds)),
    deliveryEnded: async (_tx, id, outcome) => db.tx(() => repo.deliveryEnded(id, outcome)),
  };
}
