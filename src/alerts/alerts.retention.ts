import type { TxHandle } from "../db/db.tx.ts";
import type { Clock } from "../shared/clock.ts";
import { isoAt } from "../shared/clock.ts";
import type { Plan, PlanTable } from "../shared/plans.ts";
import type { AlertsRepo } from "./alerts.repo.ts";

const DAY_MS = 24 * 3600 * 1000;
const BATCH = 1000;

export interface AlertsRetentionDeps {
  repo: Pick<AlertsRepo, "tenantsWithRules" | "ruleIdsOf" | "firingsBefore" | "removeFirings">;
  /** One transaction per batch: the firings and their deliveries go together. */
  tx<T>(fn: (tx: TxHandle) => T): T;
  /** Deletes the deliveries (and attempts) of deleted firings (the delivery room's outbox). */
  forgetDeliveries(tx: TxHandle, firingIds: string[]): void;
  /** Whether the organization still has this issue (the issues room). */
  issueExists(organizationId: string, issueId: string): Promise<boolean>;
  clock: Clock;
  plans: PlanTable;
  /** Lets other work run between batches (a sweep never holds the loop for long). */
  yieldTurn(): Promise<void>;
}

/**
 * Deletes alert firings older than their organization's plan retention, with their deliveries
 * and attempts (decisions.md §11), in bounded batches. A firing whose issue still exists stays:
 * it is what keeps the rule from alerting on that issue again; it goes once the issue is swept.
 */
export async function sweepAlertFirings(deps: AlertsRetentionDeps): Promise<number> {
  const now = deps.clock.now();
  let deleted = 0;
  for (const tenant of deps.repo.tenantsWithRules()) {
    const plan = deps.plans[tenant.plan as Plan] ?? deps.plans.free;
    const cutoff = isoAt(now - plan.retention_days * DAY_MS);
    for (const ruleId of deps.repo.ruleIdsOf(tenant.id)) {
      let after = { createdAt: "", id: "" };
      for (;;) {
        const old = deps.repo.firingsBefore(ruleId, cutoff, after, BATCH);
        const doomed: string[] = [];
        for (const f of old) {
          if (f.issueId === null || !(await deps.issueExists(tenant.id, f.issueId))) {
            doomed.push(f.id);
          }
        }
        if (doomed.length > 0) {
          deps.tx((tx) => {
            deps.repo.removeFirings(doomed);
            deps.forgetDeliveries(tx, doomed);
          });
        }
        deleted += doomed.length;
        await deps.yieldTurn();
        const last = old.at(-1);
        if (!last || old.length < BATCH) break;
        after = { createdAt: last.createdAt, id: last.id };
      }
    }
  }
  return deleted;
}
