import type { Db } from "../db/db.open.ts";
import { createDeliveryRepo } from "./delivery.repo.ts";
import { createRetryNowRepo } from "./delivery.retry-now.repo.ts";
import type { DeliveryStore } from "./delivery.store.ts";

/**
 * The outbox's SQLite repos as a DeliveryStore (for the contract suite that holds PostgreSQL to
 * SQLite's results): each write is its own transaction, as the caller's would be. The outbox
 * itself keeps calling the repos synchronously, inside the transactions of their causes.
 */
export function createDeliverySqliteStore(db: Db): DeliveryStore {
  const repo = createDeliveryRepo(db);
  const retries = createRetryNowRepo(db, repo.moveGauges);
  return {
    insert: async (_tx, rows) =>
      db.tx(() => {
        for (const row of rows) repo.insert(row);
      }),
    find: async (id) => repo.find(id),
    listBySubject: async (kind, subjectIds) => repo.listBySubject(kind, subjectIds),
    listAttempts: async (deliveryId, limit) => repo.listAttempts(deliveryId, limit),
    attemptsOfSubject: async (kind, subjectId, page) =>
      retries.attemptsOfSubject(kind, subjectId, page),
    requeue: async (_tx, kind, subjectId, includeEnded, now) =>
      db.tx(() => repo.requeue(kind, subjectId, includeEnded, now)),
    retryNow: async (_tx, kind, subjectIds, destinationKey, now) =>
      db.tx(() => retries.retryNow(kind, subjectIds, destinationKey, now)),
    forgetSubjects: async (_tx, kind, subjectIds) =>
      db.tx(() => repo.forgetSubjects(kind, subjectIds)),
    finish: async (_tx, outcome) => db.tx(() => repo.finish(outcome)),
    insertAttempt: async (_tx, attempt) => db.tx(() => repo.insertAttempt(attempt)),
  };
}
