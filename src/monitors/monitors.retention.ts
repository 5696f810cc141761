import { type Clock, isoAt } from "../shared/clock.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import { TIME } from "./monitors.model.ts";
import type { MonitorsStore } from "./monitors.store.ts";

/** Daily buckets outlive raw checks: 400 days of history for status pages and reports. */
const DAILY_DAYS = 400;
/** Hourly buckets serve the 24 h figures; a month is kept for charts. */
const HOURLY_DAYS = 31;
const BATCH = 1000;

export interface MonitorRetentionDeps {
  checks: Pick<MonitorsStore, "tenants" | "deleteChecksBefore" | "deleteBucketsBefore">;
  clock: Clock;
  plans: PlanTable;
  yieldTurn(): Promise<void>;
}

/**
 * Deletes raw checks older than their organization's plan retention (decisions.md §11) in
 * bounded batches, and rollup buckets past their own horizons.
 */
export async function sweepMonitorHistory(deps: MonitorRetentionDeps): Promise<number> {
  const now = deps.clock.now();
  let deleted = 0;
  for (const tenant of await deps.checks.tenants()) {
    const plan = deps.plans[tenant.plan as Plan] ?? deps.plans.free;
    const cutoff = isoAt(now - plan.retention_days * TIME.DAY_MS);
    for (;;) {
      const n = await deps.checks.deleteChecksBefore(tenant.id, cutoff, BATCH);
      deleted += n;
      await deps.yieldTurn();
      if (n < BATCH) break;
    }
  }
  await deps.checks.deleteBucketsBefore("hour", now - HOURLY_DAYS * TIME.DAY_MS);
  await deps.checks.deleteBucketsBefore("day", now - DAILY_DAYS * TIME.DAY_MS);
  return deleted;
}
