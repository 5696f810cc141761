import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import type { IssuesStore } from "./issues.store.ts";

const DAY_MS = 24 * 3600 * 1000;
const BATCH = 1000;

export interface IssuesRetentionDeps {
  store: Pick<IssuesStore, "tenantsWithClosedIssues" | "deleteClosedBefore">;
  clock: Clock;
  plans: PlanTable;
  /** Lets other work run between batches (a sweep never holds the loop for long). */
  yieldTurn(): Promise<void>;
}

/**
 * Deletes closed issues resolved longer ago than their organization's plan retention
 * (decisions.md §11), in bounded batches. Open and work_in_progress issues stay whatever their
 * age: they are what someone still has to look at.
 */
export async function sweepClosedIssues(deps: IssuesRetentionDeps): Promise<number> {
  const now = deps.clock.now();
  let deleted = 0;
  for (const tenant of await deps.store.tenantsWithClosedIssues()) {
    const plan = deps.plans[tenant.plan as Plan] ?? deps.plans.free;
    const cutoff = isoAt(now - plan.retention_days * DAY_MS);
    for (;;) {
      const n = await deps.store.deleteClosedBefore(tenant.id, cutoff, BATCH);
      deleted += n;
      await deps.yieldTurn();
      if (n < BATCH) break;
    }
  }
  return deleted;
}
