// Monitor alerts (decisions.md §13, §15): the monitors room tells the change inside the check's
// transaction, so the firing and its outbox delivery commit with the check that caused them.
import type { TxHandle } from "../db/db.tx.ts";
import { type FiringDeps, fire } from "./alerts.firing.ts";
import { type MonitorChange, monitorChangeMeets } from "./alerts.model.ts";
import { monitorSnapshotOf } from "./monitor-alert.model.ts";

/**
 * Every enabled rule of the organization that hears this change fires once for it: the change's
 * subject id is the firing's once-key, so a retried transaction or a second listener cannot
 * send a state change twice. Returns how many fired; the outbox is woken after the commit.
 */
export function fireForMonitorChange(
  tx: TxHandle,
  change: MonitorChange,
  deps: FiringDeps,
): number {
  let fired = 0;
  for (const { rule } of deps.repo.enabledRules(change.organizationId)) {
    if (!monitorChangeMeets(rule.condition, change)) continue;
    if (fire(tx, rule, change.subjectId, monitorSnapshotOf(change), deps)) fired++;
  }
  if (fired > 0) deps.delivery.wake();
  return fired;
}
