import { t } from "elysia";
import { genericPage, type PageRequest, pageInfo } from "../db/db.pagination.ts";
import type { StatusPage } from "./status-pages.model.ts";
import { csvCell, type Subscriber } from "./status-pages.subscribers.model.ts";
import type { SubscribersDeps } from "./status-pages.subscribers.service.ts";

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

export function listSubscribers(page: StatusPage, request: PageRequest, deps: SubscribersDeps) {
  const rows = deps.subscribers.page(page.id, request.pageSize, request.offset);
  return genericPage(rows.map(present), pageInfo(request, deps.subscribers.count(page.id)));
}

/** Every subscriber of the page, oldest first, as CSV safe to open in a spreadsheet. */
export function subscribersCsv(page: StatusPage, deps: SubscribersDeps): string {
  const lines = ["id,email,status,subscribed_at,confirmed_at"];
  for (const s of deps.subscribers.all(page.id)) {
    const p = present(s);
    lines.push([p.id, p.email, p.status, p.subscribed_at, p.confirmed_at].map(csvCell).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

export function deleteSubscriber(page: StatusPage, id: string, deps: SubscribersDeps): boolean {
  return deps.subscribers.remove(page.id, id);
}
