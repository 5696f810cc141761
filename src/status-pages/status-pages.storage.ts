import type { Db } from "../db/db.open.ts";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import { type RoomStorage, sqliteOf } from "../deps.ts";
import { createIncidentsPostgresStore } from "./incidents.postgres.ts";
import { createIncidentsRepo } from "./incidents.repo.ts";
import type { IncidentWrite } from "./incidents.service.ts";
import { createIncidentsSqliteStore } from "./incidents.sqlite.ts";
import type { IncidentsStore } from "./incidents.store.ts";
import { createPostgresMails } from "./status-pages.mails.postgres.ts";
import type { StatusPage } from "./status-pages.model.ts";
import type { MaintenanceFor, ScheduledMaintenance } from "./status-pages.ports.ts";
import { createStatusPagesPostgresStore } from "./status-pages.postgres.ts";
import { createStatusPagesRepo } from "./status-pages.repo.ts";
import { createStatusPagesSqliteStore } from "./status-pages.sqlite.ts";
import type { StatusPagesStore } from "./status-pages.store.ts";
import { createSubscribersPostgresStore } from "./status-pages.subscribers.postgres.ts";
import { createSubscribersRepo } from "./status-pages.subscribers.repo.ts";
import { sweepStatusMails } from "./status-pages.subscribers.retention.ts";
import {
  oweIncidentMails,
  oweMaintenanceMails,
  type SubscribeOutcome,
  type SubscribersDeps,
  subscribe,
} from "./status-pages.subscribers.service.ts";
import { createSubscribersSqliteStore } from "./status-pages.subscribers.sqlite.ts";
import { announceMaintenanceStarts } from "./status-pages.subscribers.starts.ts";
import type { SubscribersStore } from "./status-pages.subscribers.store.ts";

/** The outbox ports subscriber mail is written through, on either database. */
export type MailDelivery = Pick<
  DeliveryPorts,
  | "registerKind"
  | "enqueue"
  | "enqueuePostgres"
  | "wake"
  | "forgetSubjects"
  | "forgetSubjectsPostgres"
>;

/** What the mail side is made of besides the stores (SQLite's `SubscribersDeps` less storage). */
export type MailDeps = Pick<SubscribersDeps, "signer" | "clock" | "ids" | "logger" | "plans">;

/**
 * Subscriber mail, whichever database holds it: each unit commits its mail rows with their
 * outbox rows and their cause, in one transaction.
 */
export interface SubscriberMails {
  subscribe(page: StatusPage, email: string, linkBase: string): Promise<SubscribeOutcome>;
  /** An incident's update (opening: with the incident); `mailing`: subscribers are owed mails. */
  commitUpdate(write: IncidentWrite, mailing: boolean): Promise<void>;
  announceStarts(maintenanceFor: MaintenanceFor): Promise<number>;
  sweep(yieldTurn: () => Promise<void>): Promise<number>;
  /** A new maintenance window's mails, in the maintenance room's SQLite transaction. */
  maintenanceScheduled?(tx: TxHandle, window: ScheduledMaintenance): void;
  /** The same in its PostgreSQL transaction. */
  maintenanceScheduledPostgres?(tx: PostgresTx, window: ScheduledMaintenance): Promise<void>;
}

/** Where the room's rows are, whichever database holds them. */
export interface StatusPagesStorage {
  pages: StatusPagesStore;
  incidents: IncidentsStore;
  subscribers: SubscribersStore;
  mails: SubscriberMails;
}

export function statusPagesStorage(
  deps: RoomStorage,
  mailDeps: MailDeps,
  delivery: MailDelivery,
): StatusPagesStorage {
  if (deps.postgres) return postgresStorage(deps.postgres, mailDeps, delivery);
  const db = sqliteOf(deps);
  const subscribers: SubscribersDeps = {
    ...mailDeps,
    pages: createStatusPagesRepo(db),
    subscribers: createSubscribersRepo(db),
    tx: (fn) => db.tx(fn),
    enqueue: (tx, rows) => void delivery.enqueue(tx, rows),
    wake: () => delivery.wake(),
  };
  return {
    pages: createStatusPagesSqliteStore(db),
    incidents: createIncidentsSqliteStore(db),
    subscribers: createSubscribersSqliteStore(db),
    mails: sqliteMails(db, subscribers, delivery),
  };
}

/** SQLite's mail units: the synchronous service functions, each in one transaction. */
function sqliteMails(db: Db, deps: SubscribersDeps, delivery: MailDelivery): SubscriberMails {
  const incidents = createIncidentsRepo(db);
  return {
    subscribe: async (page, email, linkBase) => subscribe(page, email, linkBase, deps),
    async commitUpdate({ page, incident, update, opening }, mailing) {
      const owed = db.tx((tx) => {
        if (opening) incidents.insert(incident);
        incidents.addUpdate(incident, update);
        return mailing ? oweIncidentMails(tx, page, incident, update, deps) : 0;
      });
      if (owed > 0) deps.wake();
    },
    announceStarts: async (maintenanceFor) => announceMaintenanceStarts(deps, maintenanceFor),
    sweep: (yieldTurn) =>
      sweepStatusMails({
        ...deps,
        forgetDeliveries: (tx, ids) => delivery.forgetSubjects(tx, "status_mail", ids),
        yieldTurn,
      }),
    maintenanceScheduled: (tx, window) => void oweMaintenanceMails(tx, window, deps),
  };
}

function postgresStorage(
  pg: PostgresDb,
  mailDeps: MailDeps,
  delivery: MailDelivery,
): StatusPagesStorage {
  const { enqueuePostgres, forgetSubjectsPostgres } = delivery;
  if (!enqueuePostgres || !forgetSubjectsPostgres) {
    throw new Error("status pages on PostgreSQL need the delivery room on PostgreSQL");
  }
  const mails = createPostgresMails(pg, {
    ...mailDeps,
    enqueue: enqueuePostgres,
    forget: (tx, ids) => forgetSubjectsPostgres(tx, "status_mail", ids),
    wake: () => delivery.wake(),
  });
  return {
    pages: createStatusPagesPostgresStore(pg),
    incidents: createIncidentsPostgresStore(pg),
    subscribers: createSubscribersPostgresStore(pg),
    mails: {
      subscribe: mails.subscribe,
      commitUpdate: mails.commitUpdate,
      announceStarts: mails.announceStarts,
      sweep: mails.sweep,
      maintenanceScheduledPostgres: async (tx, window) => {
        await mails.maintenanceScheduled(tx, window);
      },
    },
  };
}
