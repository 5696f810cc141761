import type { Db } from "../db/db.open.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { type RoomStorage, sqliteOf } from "../deps.ts";
import { createIncidentsPostgresStore } from "./incidents.postgres.ts";
import { createIncidentsRepo } from "./incidents.repo.ts";
import { commitWithoutMails, type IncidentWrite } from "./incidents.service.ts";
import { createIncidentsSqliteStore } from "./incidents.sqlite.ts";
import type { IncidentsStore } from "./incidents.store.ts";
import { createStatusPagesPostgresStore } from "./status-pages.postgres.ts";
import { createStatusPagesRepo, type StatusPagesRepo } from "./status-pages.repo.ts";
import { createStatusPagesSqliteStore } from "./status-pages.sqlite.ts";
import type { StatusPagesStore } from "./status-pages.store.ts";
import { createSubscribersPostgresStore } from "./status-pages.subscribers.postgres.ts";
import { createSubscribersRepo, type SubscribersRepo } from "./status-pages.subscribers.repo.ts";
import { createSubscribersSqliteStore } from "./status-pages.subscribers.sqlite.ts";
import type { SubscribersStore } from "./status-pages.subscribers.store.ts";

/** The mails an incident's update owes, written in its transaction; `wake` after the commit. */
export interface IncidentMails {
  owe(tx: TxHandle, write: IncidentWrite): number;
  wake(): void;
}

/** Where the room's rows are, whichever database holds them. */
export interface StatusPagesStorage {
  pages: StatusPagesStore;
  incidents: IncidentsStore;
  subscribers: SubscribersStore;
  /** Writes an incident's update as one unit, with the mails it owes where mail is offered. */
  incidentCommit(mails: IncidentMails | null): (write: IncidentWrite) => Promise<void>;
  /**
   * SQLite's synchronous repos, for the subscriber mails written in one transaction with their
   * outbox rows; null on PostgreSQL, where those mails wait for the delivery room.
   */
  sqlite: { db: Db; pages: StatusPagesRepo; subscribers: SubscribersRepo } | null;
}

/** The incident, its update and its mails in one synchronous transaction, as before stores. */
function sqliteIncidentCommit(db: Db, mails: IncidentMails | null) {
  const repo = createIncidentsRepo(db);
  return async (write: IncidentWrite): Promise<void> => {
    const owed = db.tx((tx) => {
      if (write.opening) repo.insert(write.incident);
      repo.addUpdate(write.incident, write.update);
      return mails?.owe(tx, write) ?? 0;
    });
    if (owed > 0) mails?.wake();
  };
}

export function statusPagesStorage(deps: RoomStorage): StatusPagesStorage {
  if (deps.postgres) {
    const incidents = createIncidentsPostgresStore(deps.postgres);
    return {
      pages: createStatusPagesPostgresStore(deps.postgres),
      incidents,
      subscribers: createSubscribersPostgresStore(deps.postgres),
      incidentCommit: () => commitWithoutMails(incidents),
      sqlite: null,
    };
  }
  const db = sqliteOf(deps);
  return {
    pages: createStatusPagesSqliteStore(db),
    incidents: createIncidentsSqliteStore(db),
    subscribers: createSubscribersSqliteStore(db),
    incidentCommit: (mails) => sqliteIncidentCommit(db, mails),
    sqlite: { db, pages: createStatusPagesRepo(db), subscribers: createSubscribersRepo(db) },
  };
}
