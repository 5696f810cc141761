import type { Plan } from "../shared/plans.ts";
import type { MailKind, Subscriber } from "./status-pages.subscribers.model.ts";
import type { OwedMail } from "./status-pages.subscribers.repo.ts";

/**
 * Subscribers of pages, the mails owed to them and the maintenance starts pages announced, on
 * SQLite or PostgreSQL. Lists are by page; mails by organization.
 */
export interface SubscribersStore {
  insert(subscriber: Subscriber): Promise<void>;
  findByEmail(pageId: string, email: string): Promise<Subscriber | null>;
  find(id: string): Promise<Subscriber | null>;
  /** Newest first. */
  page(pageId: string, limit: number, offset: number): Promise<Subscriber[]>;
  /** Oldest first, as mails go out. */
  all(pageId: string): Promise<Subscriber[]>;
  confirmed(pageId: string): Promise<Subscriber[]>;
  /** When any page last sent this address a confirmation mail (ISO), or null. */
  lastConfirmationTo(email: string): Promise<string | null>;
  count(pageId: string): Promise<number>;
  /** False when already confirmed or gone. */
  confirm(id: string, at: string): Promise<boolean>;
  confirmationSent(id: string, at: string, linkBase: string): Promise<void>;
  remove(pageId: string, id: string): Promise<boolean>;
  insertMail(
    owner: { id: string; organizationId: string },
    subscriberId: string,
    kind: MailKind,
    mail: { subject: string; body: string },
    at: string,
  ): Promise<void>;
  /** The mail and its subscriber; null when either is gone (unsubscribed, page deleted). */
  findMail(id: string): Promise<OwedMail | null>;
  /** Every page that offers mail, across organizations (the maintenance-start job). */
  pagesOffering(): Promise<{ id: string; organizationId: string }[]>;
  /** Records that a page announced an occurrence's start; false when it already had. */
  noteStart(pageId: string, windowId: string, startsAt: string, at: string): Promise<boolean>;
  tenantsWithMails(): Promise<{ id: string; plan: Plan }[]>;
  /** Ids of the organization's mails made before `cutoff`, oldest first. */
  mailsBefore(organizationId: string, cutoff: string, limit: number): Promise<string[]>;
  removeMails(ids: readonly string[]): Promise<void>;
  /** The plan of the page's organization ("free" when the page is gone). */
  planOfPage(pageId: string): Promise<Plan>;
}
