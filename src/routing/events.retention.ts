import type { TxHandle } from "../db/db.tx.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import type { EventsRepo } from "./events.repo.ts";

const DAY_MS = 24 * 3600 * 1000;
const BATCH = 1000;

export interface EventsRetentionDeps {
  events: Pick<EventsRepo, "tenantsWithEvents" | "deleteBefore">;
  /** One transaction per batch: the events and their deliveries go together. */
  tx<T>(fn: (tx: TxHandle) => T): T;
  /** Deletes the deliveries (and attempts) of deleted events (the delivery room's outbox). */
  forgetDeliveries(tx: TxHandle, eventIds: string[]): void;
  clock: Clock;
  plans: PlanTable;
  /** Lets other work run between batches (a sweep never holds the loop for long). */
  yieldTurn(): Promise<void>;
}

/**
 * Deletes events older than their organization's plan retention, with their deliveries and
 * attempts (decisions.md §11), in bounded batches of one transaction each.
 */
export async function sweepEvents(deps: EventsRetentionDeps): Promise<number> {
  const now = deps.clock.now();
  let deleted = 0;
  for (const tenant of deps.events.tenantsWithEvents()) {
    const plan = deps.plans[tenant.plan as Plan] ?? deps.plans.free;
    const cutoff = isoAt(now - plan.retention_days * DAY_MS);
    for (;;) {
      const n = deps.tx((tx) => {
        const ids = deps.events.deleteBefore(tenant.id, cutoff, BATCH);
        if (ids.length > 0) deps.forgetDeliveries(tx, ids);
        return ids.length;
      });
      deleted += n;
      await deps.yieldTurn();
      if (n < BATCH) break;
    }
  }
  return deleted;
}
