import { t } from "elysia";
import { genericPage, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import type { StatusPage } from "./status-pages.model.ts";
import { csvCell, type Subscriber } from "./status-pages.subscribers.model.ts";
import type { SubscribersStore } from "./status-pages.subscribers.store.ts";

export const SubscriberSchema = t.Object({
  id: t.String(),
  email: t.String(),
  status: t.Union([t.Literal("pending"), t.Literal("confirmed")]),
  subscribed_at: t.String(),
  confirmed_at: t.Union([t.String(), t.Null()]),
});

const present = (s: Subscriber) => ({
  id: s.id,
  email: s.email,
  status: s.confirmedAt ? ("confirmed" as const) : ("pending" as const),
  subscribed_at: s.createdAt,
  confirmed_at: s.confirmedAt,
});

export async function listSubscribers(
  page: StatusPage,
  request: PageRequest,
  store: SubscribersStore,
) {
  const rows = await store.page(page.id, request.pageSize, request.offset);
  return genericPage(rows.map(present), pageInfo(request, await store.count(page.id)));
}

/** Every subscriber of the page, oldest first, as CSV safe to open in a spreadsheet. */
export async function subscribersCsv(page: StatusPage, store: SubscribersStore): Promise<string> {
  const lines = ["id,email,status,subscribed_at,confirmed_at"];
  for (const s of await store.all(page.id)) {
    const p = present(s);
    lines.push([p.id, p.email, p.status, p.subscribed_at, p.confirmed_at].map(csvCell).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

export function deleteSubscriber(
  page: StatusPage,
  id: string,
  store: SubscribersStore,
): Promise<boolean> {
  return store.remove(page.id, id);
}
