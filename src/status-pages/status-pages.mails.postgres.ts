// Subscriber mails on PostgreSQL: each mail row commits with its cause (a subscription, an
// incident's update, a maintenance window or its start) and with its outbox row, in one
// transaction, as the SQLite side does in its synchronous ones.
import type { PostgresDb, PostgresSql, PostgresTx } from "../db/db.postgres-handle.ts";
import type { NewDelivery } from "../delivery/delivery.ports.ts";
import { isoAt } from "../shared/clock.ts";
import { writeIncidentUpdatePostgres } from "./incidents.postgres.ts";
import type { IncidentWrite } from "./incidents.service.ts";
import type { StatusPage } from "./status-pages.model.ts";
import type { MaintenanceFor, ScheduledMaintenance } from "./status-pages.ports.ts";
import { createStatusPagesPostgresStore } from "./status-pages.postgres.ts";
import {
  CONFIRMATION_INTERVAL_MS,
  confirmationMail,
  incidentMail,
  MAIL_MAX_RETRIES,
  type Mail,
  type MailKind,
  maintenanceMail,
  maintenanceStartedMail,
  type Subscriber,
} from "./status-pages.subscribers.model.ts";
import { createSubscribersPostgresStore } from "./status-pages.subscribers.postgres.ts";
import {
  pageUrlOf,
  type SubscribeOutcome,
  type SubscribersDeps,
  unsubscribeUrlOf,
} from "./status-pages.subscribers.service.ts";

export type PostgresMailDeps = Pick<
  SubscribersDeps,
  "signer" | "clock" | "ids" | "plans" | "logger"
> & {
  enqueue(tx: PostgresTx, deliveries: readonly NewDelivery[]): Promise<unknown>;
  forget(tx: PostgresTx, mailIds: readonly string[]): Promise<unknown>;
  wake(): void;
};

const DAY_MS = 86_400_000;
const RETENTION_BATCH = 1000;
/** How long a wake waits for the caller's commit: 50 looks, 20 ms apart. */
const VISIBLE_TRIES = 50;
const VISIBLE_WAIT_MS = 20;

/** The room's stores on a client or bound to one transaction (their statements run inside it). */
function storesIn(q: PostgresSql) {
  const pg: PostgresDb = { dialect: "postgres", sql: q, close: async () => {} };
  return {
    pages: createStatusPagesPostgresStore(pg),
    subscribers: createSubscribersPostgresStore(pg),
  };
}

type Stores = ReturnType<typeof storesIn>;

export function createPostgresMails(pg: PostgresDb, deps: PostgresMailDeps) {
  const { sql } = pg;
  const linksOf = (subscriber: Subscriber, page: StatusPage) => ({
    page: pageUrlOf(subscriber.linkBase, page),
    unsubscribe: unsubscribeUrlOf(subscriber, page, deps),
  });

  async function oweMail(
    stores: Stores,
    page: StatusPage,
    subscriber: Subscriber,
    kind: MailKind,
    mail: Mail,
  ): Promise<NewDelivery> {
    const id = deps.ids.uuid();
    const owner = { id, organizationId: page.organizationId };
    await stores.subscribers.insertMail(owner, subscriber.id, kind, mail, isoAt(deps.clock.now()));
    return {
      kind: "status_mail",
      organizationId: page.organizationId,
      subjectId: id,
      destinationKey: "status_mail",
      maxRetries: MAIL_MAX_RETRIES,
    };
  }

  /** Every confirmed subscriber of the page owed one mail, written and enqueued in `tx`. */
  async function oweConfirmed(
    tx: PostgresTx,
    page: StatusPage,
    kind: MailKind,
    mailFor: (subscriber: Subscriber) => Mail,
  ): Promise<string[]> {
    const stores = storesIn(tx);
    const owed: NewDelivery[] = [];
    for (const subscriber of await stores.subscribers.confirmed(page.id)) {
      owed.push(await oweMail(stores, page, subscriber, kind, mailFor(subscriber)));
    }
    if (owed.length > 0) await deps.enqueue(tx, owed);
    return owed.map((delivery) => delivery.subjectId);
  }

  /**
   * Wakes the outbox once a mail written in another room's transaction is committed: that
   * room commits after this returns. The outbox's poll sends it anyway; this only sends it now.
   */
  async function wakeOnceVisible(mailId: string): Promise<void> {
    for (let tries = 0; tries < VISIBLE_TRIES; tries++) {
      const rows = await sql`SELECT 1 FROM status_page_mails WHERE id = ${mailId}`;
      if (rows.length > 0) return deps.wake();
      await Bun.sleep(VISIBLE_WAIT_MS);
    }
  }

  return {
    /** As the SQLite `subscribe`; the page's rows are locked so two requests count one by one. */
    async subscribe(page: StatusPage, email: string, linkBase: string): Promise<SubscribeOutcome> {
      const now = deps.clock.now();
      const at = isoAt(now);
      const outcome = await sql.begin(async (tx): Promise<SubscribeOutcome> => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`status-subscribers:${page.id}`}))`;
        await tx`SELECT pg_advisory_xact_lock(hashtext(${`status-confirmation:${email}`}))`;
        const stores = storesIn(tx);
        let subscriber = await stores.subscribers.findByEmail(page.id, email);
        if (subscriber?.confirmedAt) return "nothing_to_do";
        const last = await stores.subscribers.lastConfirmationTo(email);
        if (last !== null && now - Date.parse(last) < CONFIRMATION_INTERVAL_MS) {
          return "nothing_to_do";
        }
        if (!subscriber) {
          const plan = await stores.subscribers.planOfPage(page.id);
          const limit = deps.plans[plan]?.status_page_subscribers;
          const count = await stores.subscribers.count(page.id);
          if (limit !== null && limit !== undefined && count >= limit) return "page_full";
          subscriber = {
            id: deps.ids.uuid(),
            statusPageId: page.id,
            email,
            linkBase,
            confirmedAt: null,
            confirmationSentAt: at,
            createdAt: at,
          };
          await stores.subscribers.insert(subscriber);
        } else {
          await stores.subscribers.confirmationSent(subscriber.id, at, linkBase);
          subscriber = { ...subscriber, linkBase };
        }
        const token = deps.signer.sign("confirm", subscriber.id, now);
        const mail = confirmationMail(page, `${pageUrlOf(linkBase, page)}/confirm?token=${token}`);
        await deps.enqueue(tx, [await oweMail(stores, page, subscriber, "confirm", mail)]);
        return "mailed";
      });
      if (outcome === "mailed") deps.wake();
      if (outcome === "page_full") {
        deps.logger.warn("status page subscriber quota reached", { status_page_id: page.id });
      }
      return outcome;
    },

    /** An incident's update with the mails it owes (when `mailing`), in one transaction. */
    async commitUpdate(write: IncidentWrite, mailing: boolean): Promise<void> {
      const { page, incident, update, opening } = write;
      const kind: MailKind = opening ? "incident" : "incident_update";
      const owed = await sql.begin(async (tx) => {
        await writeIncidentUpdatePostgres(tx, incident, update, opening);
        if (!mailing || !page.allowSubscribers) return 0;
        const owed = await oweConfirmed(tx, page, kind, (s) =>
          incidentMail(page, incident, update, linksOf(s, page)),
        );
        return owed.length;
      });
      if (owed > 0) deps.wake();
    },

    /** A new window's mails, in the maintenance room's transaction that writes it. */
    async maintenanceScheduled(tx: PostgresTx, window: ScheduledMaintenance): Promise<number> {
      const touched = new Set(window.monitorIds);
      const stores = storesIn(tx);
      const owed: string[] = [];
      for (const page of await stores.pages.list(window.organizationId)) {
        if (!page.allowSubscribers) continue;
        const monitors = await stores.pages.monitors(page.id);
        if (!monitors.some((m) => touched.has(m.monitorId))) continue;
        const mails = await oweConfirmed(tx, page, "maintenance", (s) =>
          maintenanceMail(page, window, linksOf(s, page)),
        );
        owed.push(...mails);
      }
      if (owed.length > 0) void wakeOnceVisible(owed[owed.length - 1] as string);
      return owed.length;
    },

    /** As `announceMaintenanceStarts`: the notice and its mails commit together, once. */
    async announceStarts(maintenanceFor: MaintenanceFor): Promise<number> {
      const now = deps.clock.now();
      const stores = storesIn(sql);
      let owed = 0;
      for (const ref of await stores.subscribers.pagesOffering()) {
        const page = await stores.pages.find(ref.organizationId, ref.id);
        const monitorIds = page
          ? (await stores.pages.monitors(page.id)).map((m) => m.monitorId)
          : [];
        if (!page || monitorIds.length === 0) continue;
        const { active } = maintenanceFor(page.organizationId, monitorIds, new Date(now), 0);
        for (const occurrence of active) {
          owed += await sql.begin(async (tx) => {
            const noted = await storesIn(tx).subscribers.noteStart(
              page.id,
              occurrence.window_id,
              occurrence.starts_at,
              isoAt(now),
            );
            if (!noted) return 0;
            const owed = await oweConfirmed(tx, page, "maintenance_started", (s) =>
              maintenanceStartedMail(page, occurrence, linksOf(s, page)),
            );
            return owed.length;
          });
        }
      }
      if (owed > 0) deps.wake();
      return owed;
    },

    /** As `sweepStatusMails`: old mails go with their deliveries, batch by batch. */
    async sweep(yieldTurn: () => Promise<void>): Promise<number> {
      const now = deps.clock.now();
      const stores = storesIn(sql);
      let deleted = 0;
      for (const tenant of await stores.subscribers.tenantsWithMails()) {
        const plan = deps.plans[tenant.plan] ?? deps.plans.free;
        const cutoff = isoAt(now - plan.retention_days * DAY_MS);
        for (;;) {
          const ids = await stores.subscribers.mailsBefore(tenant.id, cutoff, RETENTION_BATCH);
          if (ids.length > 0) {
            await sql.begin(async (tx) => {
              await deps.forget(tx, ids);
              await storesIn(tx).subscribers.removeMails(ids);
            });
          }
          deleted += ids.length;
          await yieldTurn();
          if (ids.length < RETENTION_BATCH) break;
        }
      }
      return deleted;
    },
  };
}

export type PostgresMails = ReturnType<typeof createPostgresMails>;
