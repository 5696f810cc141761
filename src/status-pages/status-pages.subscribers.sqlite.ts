import type { Db } from "../db/db.open.ts";
import { createSubscribersRepo } from "./status-pages.subscribers.repo.ts";
import type { SubscribersStore } from "./status-pages.subscribers.store.ts";

/** The subscribers repo as a SubscribersStore: same statements, answers wrapped in promises. */
export function createSubscribersSqliteStore(db: Db): SubscribersStore {
  const repo = createSubscribersRepo(db);
  return {
    insert: async (subscriber) => repo.insert(subscriber),
    findByEmail: async (pageId, email) => repo.findByEmail(pageId, email),
    find: async (id) => repo.find(id),
    page: async (pageId, limit, offset) => repo.page(pageId, limit, offset),
    all: async (pageId) => repo.all(pageId),
    confirmed: async (pageId) => repo.confirmed(pageId),
    lastConfirmationTo: async (email) => repo.lastConfirmationTo(email),
    count: async (pageId) => repo.count(pageId),
    confirm: async (id, at) => repo.confirm(id, at),
    confirmationSent: async (id, at, linkBase) => repo.confirmationSent(id, at, linkBase),
    remove: async (pageId, id) => repo.remove(pageId, id),
    insertMail: async (owner, subscriberId, kind, mail, at) =>
      repo.insertMail(owner, subscriberId, kind, mail, at),
    findMail: async (id) => repo.findMail(id),
    pagesOffering: async () => repo.pagesOffering(),
    noteStart: async (pageId, windowId, startsAt, at) =>
      repo.noteStart(pageId, windowId, startsAt, at),
    tenantsWithMails: async () => repo.tenantsWithMails(),
    mailsBefore: async (organizationId, cutoff, limit) =>
      repo.mailsBefore(organizationId, cutoff, limit),
    removeMails: async (ids) => repo.removeMails(ids),
    planOfPage: async (pageId) => repo.planOfPage(pageId),
  };
}
