import type { TxHandle } from "../db/db.tx.ts";
import { isoAt } from "../shared/clock.ts";
import type { SubscribersDeps } from "./status-pages.subscribers.service.ts";

const DAY_MS = 86_400_000;
const BATCH = 1000;

export interface MailRetentionDeps extends SubscribersDeps {
  /** Deletes the outbox's deliveries (and attempts) of these mails. */
  forgetDeliveries(tx: TxHandle, mailIds: readonly string[]): void;
  /** Lets other work run between batches. */
  yieldTurn(): Promise<void>;
}

/**
 * Deletes subscriber mails older than their organization's plan retention, with their
 * deliveries and attempts (which hold the addresses they went to), in bounded batches.
 */
export async function sweepStatusMails(deps: MailRetentionDeps): Promise<number> {
  const now = deps.clock.now();
  let deleted = 0;
  for (const tenant of deps.subscribers.tenantsWithMails()) {
    const plan = deps.plans[tenant.plan] ?? deps.plans.free;
    const cutoff = isoAt(now - plan.retention_days * DAY_MS);
    for (;;) {
      const ids = deps.subscribers.mailsBefore(tenant.id, cutoff, BATCH);
      if (ids.length > 0) {
        deps.tx((tx) => {
          deps.forgetDeliveries(tx, ids);
          deps.subscribers.removeMails(ids);
        });
      }
      deleted += ids.length;
      await deps.yieldTurn();
      if (ids.length < BATCH) break;
    }
  }
  return deleted;
}
