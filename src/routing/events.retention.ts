import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import type { EventsRepo } from "./events.repo.ts";

const DAY_MS = 24 * 3600 * 1000;
const BATCH = 1000;

export interface EventsRetentionDeps {
  events: Pick<EventsRepo, "tenantsWithEvents" | "deleteBefore">;
  clock: Clock;
  plans: PlanTable;
  /** Lets other work run between batches (a sweep never holds the loop for long). */
  yieldTurn(): Promise<void>;
}

/** Deletes events older than their organization's plan retention (decisions.md §11). */
export async function sweepEvents(deps: EventsRetentionDeps): Promise<number> {
  const now = deps.clock.now();
  let deleted = 0;
  for (const tenant of deps.events.tenantsWithEvents()) {
    const plan = deps.plans[tenant.plan as Plan] ?? deps.plans.free;
    const cutoff = isoAt(now - plan.retention_days * DAY_MS);
    for (;;) {
      const n = deps.events.deleteBefore(tenant.id, cutoff, BATCH);
      deleted += n;
      await deps.yieldTurn();
      if (n < BATCH) break;
    }
  }
  return deleted;
}
