import type { PostgresDb } from "../db/db.postgres-handle.ts";
import type { Plan } from "../shared/plans.ts";
import type { MailKind, Subscriber } from "./status-pages.subscribers.model.ts";
import type { SubscribersStore } from "./status-pages.subscribers.store.ts";

type Row = Record<string, unknown>;

const subscriberOfRow = (r: Row): Subscriber => ({
  id: r.id as string,
  statusPageId: r.status_page_id as string,
  email: r.email as string,
  linkBase: r.link_base as string,
  confirmedAt: r.confirmed_at as string | null,
  confirmationSentAt: r.confirmation_sent_at as string | null,
  createdAt: r.created_at as string,
});

/** Subscribers and their mails on PostgreSQL, answering as the SQLite repo does. */
export function createSubscribersPostgresStore(pg: PostgresDb): SubscribersStore {
  const { sql } = pg;
  const one = (rows: Row[]) => (rows[0] ? subscriberOfRow(rows[0]) : null);
  const find = async (id: string) =>
    one(await sql`SELECT * FROM status_page_subscribers WHERE id = ${id}`);
  return {
    async insert(s) {
      await sql`
        INSERT INTO status_page_subscribers (id, status_page_id, email, link_base, confirmed_at,
          confirmation_sent_at, created_at)
        VALUES (${s.id}, ${s.statusPageId}, ${s.email}, ${s.linkBase}, ${s.confirmedAt},
          ${s.confirmationSentAt}, ${s.createdAt})`;
    },
    findByEmail: async (pageId, email) =>
      one(
        await sql`SELECT * FROM status_page_subscribers
          WHERE status_page_id = ${pageId} AND email = ${email}`,
      ),
    find,
    page: async (pageId, limit, offset) =>
      (
        await sql`SELECT * FROM status_page_subscribers WHERE status_page_id = ${pageId}
          ORDER BY created_at DESC, id DESC LIMIT ${limit} OFFSET ${offset}`
      ).map(subscriberOfRow),
    all: async (pageId) =>
      (
        await sql`SELECT * FROM status_page_subscribers WHERE status_page_id = ${pageId}
          ORDER BY created_at, id`
      ).map(subscriberOfRow),
    confirmed: async (pageId) =>
      (
        await sql`SELECT * FROM status_page_subscribers
          WHERE status_page_id = ${pageId} AND confirmed_at IS NOT NULL ORDER BY created_at, id`
      ).map(subscriberOfRow),
    async lastConfirmationTo(email) {
      const [row] = await sql`SELECT max(confirmation_sent_at) AS at FROM status_page_subscribers
        WHERE email = ${email}`;
      return (row?.at as string | null) ?? null;
    },
    async count(pageId) {
      const [row] = await sql`SELECT count(*)::int AS n FROM status_page_subscribers
        WHERE status_page_id = ${pageId}`;
      return (row?.n as number) ?? 0;
    },
    confirm: async (id, at) =>
      (
        await sql`UPDATE status_page_subscribers SET confirmed_at = ${at}
          WHERE id = ${id} AND confirmed_at IS NULL RETURNING id`
      ).length > 0,
    async confirmationSent(id, at, linkBase) {
      await sql`UPDATE status_page_subscribers SET confirmation_sent_at = ${at},
        link_base = ${linkBase} WHERE id = ${id}`;
    },
    remove: async (pageId, id) =>
      (
        await sql`DELETE FROM status_page_subscribers
          WHERE status_page_id = ${pageId} AND id = ${id} RETURNING id`
      ).length > 0,
    async insertMail(owner, subscriberId, kind, m, at) {
      await sql`
        INSERT INTO status_page_mails (id, organization_id, subscriber_id, kind, subject, body,
          created_at)
        VALUES (${owner.id}, ${owner.organizationId}, ${subscriberId}, ${kind}, ${m.subject},
          ${m.body}, ${at})`;
    },
    async findMail(id) {
      const [row] = await sql`SELECT id, kind, subject, body, subscriber_id
        FROM status_page_mails WHERE id = ${id}`;
      const subscriber = row?.subscriber_id ? await find(row.subscriber_id as string) : null;
      if (!row || !subscriber) return null;
      return {
        id: row.id as string,
        kind: row.kind as MailKind,
        subject: row.subject as string,
        body: row.body as string,
        subscriber,
      };
    },
    pagesOffering: async () =>
      (await sql`SELECT id, organization_id FROM status_pages WHERE allow_subscribers = 1`).map(
        (r: Row) => ({ id: r.id as string, organizationId: r.organization_id as string }),
      ),
    noteStart: async (pageId, windowId, startsAt, at) =>
      (
        await sql`
          INSERT INTO status_page_maintenance_notices (status_page_id, window_id, starts_at,
            created_at) VALUES (${pageId}, ${windowId}, ${startsAt}, ${at})
          ON CONFLICT DO NOTHING RETURNING window_id`
      ).length > 0,
    tenantsWithMails: async () =>
      (
        await sql`SELECT o.id, o.plan FROM organizations o
          WHERE EXISTS (SELECT 1 FROM status_page_mails m WHERE m.organization_id = o.id)`
      ).map((r: Row) => ({ id: r.id as string, plan: r.plan as Plan })),
    mailsBefore: async (organizationId, cutoff, limit) =>
      (
        await sql`SELECT id FROM status_page_mails
          WHERE organization_id = ${organizationId} AND created_at < ${cutoff}
          ORDER BY created_at, id LIMIT ${limit}`
      ).map((r: Row) => r.id as string),
    async removeMails(ids) {
      if (ids.length === 0) return;
      await sql`DELETE FROM status_page_mails WHERE id IN ${sql([...ids])}`;
    },
    async planOfPage(pageId) {
      const [row] = await sql`SELECT o.plan FROM status_pages p
        JOIN organizations o ON o.id = p.organization_id WHERE p.id = ${pageId}`;
      return (row?.plan as Plan | undefined) ?? "free";
    },
  };
}
