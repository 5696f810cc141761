import type { ApiKeyPorts } from "../auth/api-keys.ports.ts";
import type { PostgresDb, PostgresTx } from "../db/db.postgres-handle.ts";
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import { type RoomStorage, type SharedDeps, sqliteOf } from "../deps.ts";
import type { IssuesPorts } from "../issues/issues.ports.ts";
import { fireForApiKeyEvent } from "./alerts.api-keys.ts";
import {
  type FiringDeps,
  fireForChange,
  type WriteAlerts,
  type WrittenAlert,
  writeAlert,
} from "./alerts.firing.ts";
import type { MonitorChange } from "./alerts.model.ts";
import {
  alertsInPostgresTransaction,
  createAlertsPostgresStore,
  createPostgresMailCounter,
} from "./alerts.postgres.ts";
import { createAlertsRepo } from "./alerts.repo.ts";
import { HOUR_MS, MAIL_PER_HOUR } from "./alerts.send.ts";
import { createAlertsSqliteStore } from "./alerts.sqlite.ts";
import type { AlertsStore } from "./alerts.store.ts";
import { fireForMonitorChange } from "./monitor-firing.ts";
import {
  fireForApiKeyEventPostgres,
  fireForChangePostgres,
  fireForMonitorChangePostgres,
  type PostgresFiringDeps,
  writeAlertPostgres,
} from "./postgres-firing.ts";

export type AlertsStorageDeps = Pick<SharedDeps, "clock" | "ids"> & RoomStorage;

export interface AlertsStorageLinks {
  delivery: DeliveryPorts;
  issues: IssuesPorts;
  apiKeys?: ApiKeyPorts;
}

/** What the room runs on, whichever database holds it. */
export interface AlertsStorage {
  store: AlertsStore;
  writeAlerts: WriteAlerts;
  /** Deletes firings with their deliveries, in one transaction. */
  removeFirings(firingIds: string[]): Promise<void>;
  /** The organization's mails of this hour, one count for every node (absent: in memory). */
  takeMail?(organizationId: string): Promise<boolean>;
  /** The monitors room's listener on SQLite, in the check's transaction. */
  monitorChanged(tx: TxHandle, change: MonitorChange): void;
  /** The monitors room's listener on PostgreSQL (absent while no alert can be written there). */
  monitorChangedPostgres?(tx: PostgresTx, change: MonitorChange): Promise<void>;
}

const noDelivery = (): never => {
  throw new Error("the delivery room lent no enqueuePostgres: no alert can be written");
};

/**
 * SQLite: the repo under the store, alerts written in the synchronous transaction of their cause.
 * PostgreSQL: the store, alerts written in the `sql.begin` transaction of their cause.
 * Registers the listeners of the rooms whose changes fire rules.
 */
export function alertsStorage(deps: AlertsStorageDeps, links: AlertsStorageLinks): AlertsStorage {
  if (deps.postgres) return postgresStorage(deps, deps.postgres, links);
  const db = sqliteOf(deps);
  const repo = createAlertsRepo(db);
  const { delivery } = links;
  const firing: FiringDeps = { repo, delivery, clock: deps.clock, ids: deps.ids };
  const { issues, apiKeys } = links;
  issues.onIssueChange((tx, change) => fireForChange(tx, change, { ...firing, issues }));
  apiKeys?.onApiKeyEvent((tx, event) => fireForApiKeyEvent(tx, event, firing));
  return {
    store: createAlertsSqliteStore(db, repo),
    writeAlerts: async (alerts) =>
      db.tx((tx) =>
        alerts
          .map(({ rule, subject }) => writeAlert(tx, rule, subject, firing))
          .filter((written): written is WrittenAlert => written !== null),
      ),
    removeFirings: async (ids) =>
      db.tx((tx) => {
        repo.removeFirings(ids);
        delivery.forgetSubjects(tx, "alert", ids);
      }),
    monitorChanged: (tx, change) => void fireForMonitorChange(tx, change, firing),
  };
}

function postgresStorage(
  deps: AlertsStorageDeps,
  pg: PostgresDb,
  links: AlertsStorageLinks,
): AlertsStorage {
  const store = createAlertsPostgresStore(pg);
  const enqueue = links.delivery.enqueuePostgres;
  const forget = links.delivery.forgetSubjectsPostgres;
  const firing: PostgresFiringDeps | null = enqueue
    ? {
        inTx: alertsInPostgresTransaction(pg),
        enqueue,
        wake: () => links.delivery.wake(),
        clock: deps.clock,
        ids: deps.ids,
      }
    : null;
  const { issues, apiKeys } = links;
  if (firing) {
    issues.onIssueChangePostgres?.((tx, change) =>
      fireForChangePostgres(tx, change, { ...firing, issues }).then(() => {}),
    );
    apiKeys?.onApiKeyEventPostgres((tx, event) =>
      fireForApiKeyEventPostgres(tx, event, firing).then(() => {}),
    );
  }
  const hourNow = () => Math.floor(deps.clock.now() / HOUR_MS);
  return {
    store,
    takeMail: createPostgresMailCounter(pg, hourNow, MAIL_PER_HOUR),
    writeAlerts: async (alerts) => {
      if (!firing) return noDelivery();
      return pg.sql.begin(async (tx) => {
        const written: WrittenAlert[] = [];
        for (const { rule, subject } of alerts) {
          const alert = await writeAlertPostgres(tx, rule, subject, firing);
          if (alert) written.push(alert);
        }
        return written;
      });
    },
    removeFirings: async (ids) => {
      await pg.sql.begin(async (tx) => {
        await alertsInPostgresTransaction(pg).removeFirings(tx, ids);
        await forget?.(tx, "alert", ids);
      });
    },
    monitorChanged: () => {},
    ...(firing && {
      monitorChangedPostgres: async (tx: PostgresTx, change: MonitorChange) => {
        await fireForMonitorChangePostgres(tx, change, firing);
      },
    }),
  };
}
