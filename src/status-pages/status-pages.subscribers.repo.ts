import type { Db } from "../db/db.open.ts";
import type { Plan } from "../shared/plans.ts";
import type { MailKind, Subscriber } from "./status-pages.subscribers.model.ts";

interface SubscriberRow {
  id: string;
  status_page_id: string;
  email: string;
  link_base: string;
  confirmed_at: string | null;
  confirmation_sent_at: string | null;
  created_at: string;
}

const subscriberOfRow = (r: SubscriberRow): Subscriber => ({
  id: r.id,
  statusPageId: r.status_page_id,
  email: r.email,
  linkBase: r.link_base,
  confirmedAt: r.confirmed_at,
  confirmationSentAt: r.confirmation_sent_at,
  createdAt: r.created_at,
});

/** A mail owed, with whom it is for: what the outbox sends. */
export interface OwedMail {
  id: string;
  kind: MailKind;
  subject: string;
  body: string;
  subscriber: Subscriber;
}

/** Subscribers of pages and the mails owed to them; every list is by page. */
export function createSubscribersRepo(db: Db) {
  const { sqlite } = db;
  const insert = sqlite.prepare(
    `INSERT INTO status_page_subscribers (id, status_page_id, email, link_base, confirmed_at,
       confirmation_sent_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const byEmail = sqlite.prepare<SubscriberRow, [string, string]>(
    "SELECT * FROM status_page_subscribers WHERE status_page_id = ? AND email = ?",
  );
  const byId = sqlite.prepare<SubscriberRow, [string]>(
    "SELECT * FROM status_page_subscribers WHERE id = ?",
  );
  const page = sqlite.prepare<SubscriberRow, [string, number, number]>(
    `SELECT * FROM status_page_subscribers WHERE status_page_id = ?
     ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const all = sqlite.prepare<SubscriberRow, [string]>(
    "SELECT * FROM status_page_subscribers WHERE status_page_id = ? ORDER BY created_at, id",
  );
  const confirmed = sqlite.prepare<SubscriberRow, [string]>(
    `SELECT * FROM status_page_subscribers WHERE status_page_id = ? AND confirmed_at IS NOT NULL
     ORDER BY created_at, id`,
  );
  const count = sqlite.prepare<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM status_page_subscribers WHERE status_page_id = ?",
  );
  const lastConfirmation = sqlite.prepare<{ at: string | null }, [string]>(
    "SELECT max(confirmation_sent_at) AS at FROM status_page_subscribers WHERE email = ?",
  );
  const confirm = sqlite.prepare(
    "UPDATE status_page_subscribers SET confirmed_at = ? WHERE id = ? AND confirmed_at IS NULL",
  );
  const sentConfirmation = sqlite.prepare(
    "UPDATE status_page_subscribers SET confirmation_sent_at = ?, link_base = ? WHERE id = ?",
  );
  const remove = sqlite.prepare(
    "DELETE FROM status_page_subscribers WHERE status_page_id = ? AND id = ?",
  );
  const insertMail = sqlite.prepare(
    `INSERT INTO status_page_mails (id, organization_id, subscriber_id, kind, subject, body,
       created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const mail = sqlite.prepare<
    { id: string; kind: string; subject: string; body: string; subscriber_id: string | null },
    [string]
  >("SELECT id, kind, subject, body, subscriber_id FROM status_page_mails WHERE id = ?");
  const offering = sqlite.prepare<{ id: string; organization_id: string }, []>(
    "SELECT id, organization_id FROM status_pages WHERE allow_subscribers = 1",
  );
  const notice = sqlite.prepare(
    `INSERT OR IGNORE INTO status_page_maintenance_notices (status_page_id, window_id, starts_at,
       created_at) VALUES (?, ?, ?, ?)`,
  );
  const tenantsWithMails = sqlite.prepare<{ id: string; plan: string }, []>(
    `SELECT o.id, o.plan FROM organizations o
     WHERE EXISTS (SELECT 1 FROM status_page_mails m WHERE m.organization_id = o.id)`,
  );
  const mailsBefore = sqlite.prepare<{ id: string }, [string, string, number]>(
    `SELECT id FROM status_page_mails WHERE organization_id = ? AND created_at < ?
     ORDER BY created_at LIMIT ?`,
  );
  // The organization's plan sizes the subscriber quota of its pages.
  const planOfPage = sqlite.prepare<{ plan: string }, [string]>(
    `SELECT o.plan FROM status_pages p JOIN organizations o ON o.id = p.organization_id
     WHERE p.id = ?`,
  );

  return {
    insert(s: Subscriber) {
      insert.run(
        s.id,
        s.statusPageId,
        s.email,
        s.linkBase,
        s.confirmedAt,
        s.confirmationSentAt,
        s.createdAt,
      );
    },
    findByEmail(pageId: string, email: string): Subscriber | null {
      const row = byEmail.get(pageId, email);
      return row ? subscriberOfRow(row) : null;
    },
    find(id: string): Subscriber | null {
      const row = byId.get(id);
      return row ? subscriberOfRow(row) : null;
    },
    page(pageId: string, limit: number, offset: number): Subscriber[] {
      return page.all(pageId, limit, offset).map(subscriberOfRow);
    },
    all(pageId: string): Subscriber[] {
      return all.all(pageId).map(subscriberOfRow);
    },
    confirmed(pageId: string): Subscriber[] {
      return confirmed.all(pageId).map(subscriberOfRow);
    },
    /** When any page last sent this address a confirmation mail (ISO), or null. */
    lastConfirmationTo(email: string): string | null {
      return lastConfirmation.get(email)?.at ?? null;
    },
    count(pageId: string): number {
      return count.get(pageId)?.n ?? 0;
    },
    confirm(id: string, at: string): boolean {
      return confirm.run(at, id).changes > 0;
    },
    confirmationSent(id: string, at: string, linkBase: string) {
      sentConfirmation.run(at, linkBase, id);
    },
    remove(pageId: string, id: string): boolean {
      return remove.run(pageId, id).changes > 0;
    },
    insertMail(
      owner: { id: string; organizationId: string },
      subscriberId: string,
      kind: MailKind,
      m: { subject: string; body: string },
      at: string,
    ) {
      insertMail.run(owner.id, owner.organizationId, subscriberId, kind, m.subject, m.body, at);
    },
    /** The mail and its subscriber; null when either is gone (unsubscribed, page deleted). */
    findMail(id: string): OwedMail | null {
      const row = mail.get(id);
      const subscriber = row?.subscriber_id ? byId.get(row.subscriber_id) : null;
      if (!row || !subscriber) return null;
      return {
        id: row.id,
        kind: row.kind as MailKind,
        subject: row.subject,
        body: row.body,
        subscriber: subscriberOfRow(subscriber),
      };
    },
    /** Every page that offers mail, across organizations (the maintenance-start job). */
    pagesOffering(): { id: string; organizationId: string }[] {
      return offering.all().map((r) => ({ id: r.id, organizationId: r.organization_id }));
    },
    /** Records that a page announced an occurrence's start; false when it already had. */
    noteStart(pageId: string, windowId: string, startsAt: string, at: string): boolean {
      return notice.run(pageId, windowId, startsAt, at).changes > 0;
    },
    tenantsWithMails(): { id: string; plan: Plan }[] {
      return tenantsWithMails.all() as { id: string; plan: Plan }[];
    },
    mailsBefore(organizationId: string, cutoff: string, limit: number): string[] {
      return mailsBefore.all(organizationId, cutoff, limit).map((row) => row.id);
    },
    removeMails(ids: readonly string[]) {
      if (ids.length === 0) return;
      sqlite.run(`DELETE FROM status_page_mails WHERE id IN (${ids.map(() => "?").join(",")})`, [
        ...ids,
      ]);
    },
    planOfPage(pageId: string): Plan {
      return (planOfPage.get(pageId)?.plan as Plan | undefined) ?? "free";
    },
  };
}

export type SubscribersRepo = ReturnType<typeof createSubscribersRepo>;
