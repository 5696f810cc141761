import { isoAt } from "../shared/clock.ts";
import type { MaintenanceFor } from "./status-pages.ports.ts";
import { maintenanceStartedMail } from "./status-pages.subscribers.model.ts";
import {
  oweMail,
  pageUrlOf,
  type SubscribersDeps,
  unsubscribeUrlOf,
} from "./status-pages.subscribers.service.ts";

/**
 * Announces each maintenance occurrence under way on a page's monitors to its confirmed
 * subscribers, once: the notice row and the mails commit together, so a crash between runs
 * neither loses nor repeats an announcement. Returns how many mails were owed.
 */
export function announceMaintenanceStarts(
  deps: SubscribersDeps,
  maintenanceFor: MaintenanceFor,
): number {
  const now = deps.clock.now();
  let owed = 0;
  for (const ref of deps.subscribers.pagesOffering()) {
    const page = deps.pages.find(ref.organizationId, ref.id);
    const monitorIds = page ? deps.pages.monitors(page.id).map((m) => m.monitorId) : [];
    if (!page || monitorIds.length === 0) continue;
    const { active } = maintenanceFor(page.organizationId, monitorIds, new Date(now), 0);
    for (const occurrence of active) {
      owed += deps.tx((tx) => {
        const at = isoAt(now);
        if (!deps.subscribers.noteStart(page.id, occurrence.window_id, occurrence.starts_at, at)) {
          return 0;
        }
        const rows = deps.subscribers.confirmed(page.id).map((subscriber) => {
          const links = {
            page: pageUrlOf(subscriber.linkBase, page),
            unsubscribe: unsubscribeUrlOf(subscriber, page, deps),
          };
          const mail = maintenanceStartedMail(page, occurrence, links);
          return oweMail(page, subscriber, "maintenance_started", mail, deps);
        });
        if (rows.length > 0) deps.enqueue(tx, rows);
        return rows.length;
      });
    }
  }
  if (owed > 0) deps.wake();
  return owed;
}
