// Email subscribers of a status page (double opt-in): subscribe, confirm, unsubscribe, and the
// mails an incident owes them, written in the incident's own transaction.
import type { TxHandle } from "../db/db.tx.ts";
import type { NewDelivery } from "../delivery/delivery.ports.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import type { PlanTable } from "../shared/plans.ts";
import type { Incident, IncidentUpdate, StatusPage } from "./status-pages.model.ts";
import type { ScheduledMaintenance } from "./status-pages.ports.ts";
import type { StatusPagesRepo } from "./status-pages.repo.ts";
import {
  CONFIRMATION_INTERVAL_MS,
  confirmationMail,
  incidentMail,
  MAIL_MAX_RETRIES,
  type Mail,
  type MailKind,
  maintenanceMail,
  type Subscriber,
} from "./status-pages.subscribers.model.ts";
import type { SubscribersRepo } from "./status-pages.subscribers.repo.ts";
import type { SubscribersStore } from "./status-pages.subscribers.store.ts";
import type { Signer } from "./status-pages.subscribers.tokens.ts";

export interface SubscribersDeps {
  pages: StatusPagesRepo;
  subscribers: SubscribersRepo;
  signer: Signer;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  plans: PlanTable;
  tx<T>(fn: (tx: TxHandle) => T): T;
  /** The delivery outbox: writes the rows in the caller's transaction; `wake` after commit. */
  enqueue(tx: TxHandle, deliveries: readonly NewDelivery[]): void;
  wake(): void;
}

/** What following a subscriber's signed link needs: works wherever the pages are stored. */
export interface SubscriberLinksDeps {
  store: SubscribersStore;
  signer: Signer;
  clock: Clock;
}

/** What a visitor's subscribe request came to; the answer is the same for each (no oracle). */
export type SubscribeOutcome = "mailed" | "nothing_to_do" | "page_full";

export const pageUrlOf = (linkBase: string, page: StatusPage) => `${linkBase}/status/${page.slug}`;

export function unsubscribeUrlOf(
  s: Subscriber,
  page: StatusPage,
  deps: Pick<SubscribersDeps, "signer" | "clock">,
): string {
  const token = deps.signer.sign("unsubscribe", s.id, deps.clock.now());
  return `${pageUrlOf(s.linkBase, page)}/unsubscribe?token=${token}`;
}

export function oweMail(
  page: StatusPage,
  subscriber: Subscriber,
  kind: MailKind,
  mail: Mail,
  deps: SubscribersDeps,
): NewDelivery {
  const id = deps.ids.uuid();
  const owner = { id, organizationId: page.organizationId };
  deps.subscribers.insertMail(owner, subscriber.id, kind, mail, isoAt(deps.clock.now()));
  return {
    kind: "status_mail",
    organizationId: page.organizationId,
    subjectId: id,
    // One breaker for the operator's mail server, whoever the mail is for.
    destinationKey: "status_mail",
    maxRetries: MAIL_MAX_RETRIES,
  };
}

/**
 * A visitor asks for updates. A new address gets a pending row and the one confirmation mail; a
 * pending one gets it again at most once an hour; a confirmed one gets nothing.
 */
export function subscribe(
  page: StatusPage,
  email: string,
  linkBase: string,
  deps: SubscribersDeps,
): SubscribeOutcome {
  const now = deps.clock.now();
  const at = isoAt(now);
  const outcome = deps.tx((tx) => {
    let subscriber = deps.subscribers.findByEmail(page.id, email);
    if (subscriber?.confirmedAt) return "nothing_to_do" as const;
    // Per address across every page: many pages cannot be used to flood one inbox.
    const last = deps.subscribers.lastConfirmationTo(email);
    if (last !== null && now - Date.parse(last) < CONFIRMATION_INTERVAL_MS) {
      return "nothing_to_do" as const;
    }
    if (!subscriber) {
      const limit = deps.plans[deps.subscribers.planOfPage(page.id)]?.status_page_subscribers;
      if (limit !== null && limit !== undefined && deps.subscribers.count(page.id) >= limit) {
        return "page_full" as const;
      }
      subscriber = {
        id: deps.ids.uuid(),
        statusPageId: page.id,
        email,
        linkBase,
        confirmedAt: null,
        confirmationSentAt: at,
        createdAt: at,
      };
      deps.subscribers.insert(subscriber);
    } else {
      deps.subscribers.confirmationSent(subscriber.id, at, linkBase);
      subscriber = { ...subscriber, linkBase };
    }
    const token = deps.signer.sign("confirm", subscriber.id, now);
    const confirmUrl = `${pageUrlOf(linkBase, page)}/confirm?token=${token}`;
    const mail = confirmationMail(page, confirmUrl);
    deps.enqueue(tx, [oweMail(page, subscriber, "confirm", mail, deps)]);
    return "mailed" as const;
  });
  if (outcome === "mailed") deps.wake();
  if (outcome === "page_full") {
    deps.logger.warn("status page subscriber quota reached", { status_page_id: page.id });
  }
  return outcome;
}

/** The subscriber a signed link names, when it is genuine, unexpired and of this page. */
async function subscriberOf(
  page: StatusPage,
  token: string,
  purpose: "confirm" | "unsubscribe",
  deps: SubscriberLinksDeps,
): Promise<Subscriber | null> {
  const claims = deps.signer.verify(token, purpose, deps.clock.now());
  const subscriber = claims ? await deps.store.find(claims.subject) : null;
  return subscriber && subscriber.statusPageId === page.id ? subscriber : null;
}

/** Follows a confirmation link; false when the link is bad, expired or its subscriber gone. */
export async function confirmSubscriber(
  page: StatusPage,
  token: string,
  deps: SubscriberLinksDeps,
): Promise<boolean> {
  const subscriber = await subscriberOf(page, token, "confirm", deps);
  if (!subscriber) return false;
  await deps.store.confirm(subscriber.id, isoAt(deps.clock.now()));
  return true;
}

/** Whether an unsubscribe link is genuine (what its confirm button needs to be shown). */
export async function unsubscribeLinkValid(
  page: StatusPage,
  token: string,
  deps: SubscriberLinksDeps,
): Promise<boolean> {
  return (await subscriberOf(page, token, "unsubscribe", deps)) !== null;
}

/**
 * Unsubscribes the address an unsubscribe link names: its row goes, and with it every mail it
 * was still owed. A link followed twice is answered the same.
 */
export async function unsubscribe(
  page: StatusPage,
  token: string,
  deps: SubscriberLinksDeps,
): Promise<boolean> {
  const claims = deps.signer.verify(token, "unsubscribe", deps.clock.now());
  if (!claims) return false;
  await deps.store.remove(page.id, claims.subject);
  return true;
}

/**
 * Owes every confirmed subscriber of the page a mail of an incident's opening or update. Runs
 * inside the transaction that writes the update, so a crash loses neither or both.
 */
export function oweIncidentMails(
  tx: TxHandle,
  page: StatusPage,
  incident: Incident,
  update: IncidentUpdate,
  deps: SubscribersDeps,
): number {
  if (!page.allowSubscribers) return 0;
  const kind: MailKind = incident.updates[0]?.id === update.id ? "incident" : "incident_update";
  const owed = deps.subscribers.confirmed(page.id).map((subscriber) => {
    const links = {
      page: pageUrlOf(subscriber.linkBase, page),
      unsubscribe: unsubscribeUrlOf(subscriber, page, deps),
    };
    return oweMail(page, subscriber, kind, incidentMail(page, incident, update, links), deps);
  });
  if (owed.length > 0) deps.enqueue(tx, owed);
  return owed.length;
}

/**
 * A new maintenance window: each of the organization's pages that offers mail and shows one of
 * its monitors owes its confirmed subscribers a mail, in the window's own transaction.
 */
export function oweMaintenanceMails(
  tx: TxHandle,
  window: ScheduledMaintenance,
  deps: SubscribersDeps,
): number {
  const touched = new Set(window.monitorIds);
  const owed = deps.pages
    .list(window.organizationId)
    .filter((page) => page.allowSubscribers)
    .filter((page) => deps.pages.monitors(page.id).some((m) => touched.has(m.monitorId)))
    .flatMap((page) =>
      deps.subscribers.confirmed(page.id).map((subscriber) => {
        const links = {
          page: pageUrlOf(subscriber.linkBase, page),
          unsubscribe: unsubscribeUrlOf(subscriber, page, deps),
        };
        return oweMail(page, subscriber, "maintenance", maintenanceMail(page, window, links), deps);
      }),
    );
  if (owed.length > 0) {
    deps.enqueue(tx, owed);
    // The outbox claims at the end of this turn, after the caller's commit.
    deps.wake();
  }
  return owed.length;
}
