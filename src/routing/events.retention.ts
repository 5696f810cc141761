import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";

const DAY_MS = 24 * 3600 * 1000;
const BATCH = 1000;

export interface EventsRetentionDeps {
  /** Organizations that hold events, with their plan. */
  tenantsWithEvents(): Promise<{ id: string; plan: string }[]>;
  /**
   * In one transaction: deletes up to `limit` of the organization's events created before
   * `beforeIso` and their deliveries (with their attempts); how many events went.
   */
  deleteBatch(organizationId: string, beforeIso: string, limit: number): Promise<number>;
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
  for (const tenant of await deps.tenantsWithEvents()) {
    const plan = deps.plans[tenant.plan as Plan] ?? deps.plans.free;
    const cutoff = isoAt(now - plan.retention_days * DAY_MS);
    for (;;) {
      const n = await deps.deleteBatch(tenant.id, cutoff, BATCH);
      deleted += n;
      await deps.yieldTurn();
      if (n < BATCH) break;
    }
  }
  return deleted;
}
