// The firing paths on PostgreSQL: the same decisions as on SQLite, written inside the transaction
// another room holds (an attempt's, a monitor check's), so an alert commits with its cause or not
// at all. The unique (rule, subject, condition) key makes it fire once across nodes.
import type { ApiKeyEvent } from "../auth/api-keys.ports.ts";
import type { PostgresTx } from "../db/db.postgres-handle.ts";
import type { DeliveryPorts } from "../delivery/delivery.ports.ts";
import type { IssueChange, IssuesPorts } from "../issues/issues.ports.ts";
import type { Clock } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import { snapshotOf } from "./alert-message.model.ts";
import { keyEventAlerts } from "./alerts.api-keys.ts";
import {
  type AlertSubject,
  alertDelivery,
  echoes,
  issueSubject,
  mayEcho,
  newFiring,
  type WrittenAlert,
} from "./alerts.firing.ts";
import {
  type AlertRule,
  changeMeets,
  type MonitorChange,
  monitorChangeMeets,
} from "./alerts.model.ts";
import type { AlertsInTransaction } from "./alerts.store.ts";
import { monitorSnapshotOf } from "./monitor-alert.model.ts";

export interface PostgresFiringDeps {
  inTx: AlertsInTransaction<PostgresTx>;
  enqueue: NonNullable<DeliveryPorts["enqueuePostgres"]>;
  /** Claims what is due at the end of this turn. */
  wake(): void;
  clock: Clock;
  ids: Ids;
}

/** Writes one alert (firing + delivery) in `tx`; null when the rule already fired under its key. */
export async function writeAlertPostgres(
  tx: PostgresTx,
  rule: AlertRule,
  subject: AlertSubject,
  deps: PostgresFiringDeps,
): Promise<WrittenAlert | null> {
  const firing = newFiring(rule, subject, deps);
  if (!(await deps.inTx.insertFiring(tx, firing))) return null;
  const [delivery] = await deps.enqueue(tx, [alertDelivery(rule, firing)]);
  if (!delivery) throw new Error("the outbox wrote no delivery for an alert");
  return { firing, delivery };
}

/** The issues room's listener on PostgreSQL, in the transaction that recorded the attempt. */
export async function fireForChangePostgres(
  tx: PostgresTx,
  change: IssueChange,
  deps: PostgresFiringDeps & {
    issues: Pick<IssuesPorts, "listUnclosedOfDestinationPostgres">;
  },
): Promise<number> {
  const { issue } = change;
  const listUnclosed = deps.issues.listUnclosedOfDestinationPostgres;
  if (mayEcho(issue) && listUnclosed) {
    if (echoes(issue, await listUnclosed(tx, issue.organizationId, issue.destinationId))) return 0;
  }
  let fired = 0;
  for (const { rule } of await deps.inTx.enabledRules(tx, issue.organizationId)) {
    if (!changeMeets(rule.condition, change)) continue;
    const subject = issueSubject(rule, issue.id, snapshotOf(issue, change.context));
    if (await writeAlertPostgres(tx, rule, subject, deps)) fired++;
  }
  if (fired > 0) await wakeAfter(tx, deps);
  return fired;
}

/**
 * Wakes the outbox once the cause's transaction has ended: a wake now would claim before the
 * alert's delivery is visible, leaving it to the next poll.
 */
async function wakeAfter(tx: PostgresTx, deps: PostgresFiringDeps) {
  const { ended } = await deps.inTx.endOf(tx);
  void ended.then(deps.wake, deps.wake);
}

/** The monitors room's listener on PostgreSQL, in the transaction that recorded the check. */
export async function fireForMonitorChangePostgres(
  tx: PostgresTx,
  change: MonitorChange,
  deps: PostgresFiringDeps,
): Promise<number> {
  let fired = 0;
  for (const { rule } of await deps.inTx.enabledRules(tx, change.organizationId)) {
    if (!monitorChangeMeets(rule.condition, change)) continue;
    const subject = issueSubject(rule, change.subjectId, monitorSnapshotOf(change));
    if (await writeAlertPostgres(tx, rule, subject, deps)) fired++;
  }
  if (fired > 0) await wakeAfter(tx, deps);
  return fired;
}

/** The auth room's key events on PostgreSQL, in the transaction that wrote their cause. */
export async function fireForApiKeyEventPostgres(
  tx: PostgresTx,
  event: ApiKeyEvent,
  deps: PostgresFiringDeps,
): Promise<number> {
  const rules = await deps.inTx.enabledRules(tx, event.key.organizationId);
  let fired = 0;
  for (const { rule, subject } of keyEventAlerts(rules, event)) {
    if (await writeAlertPostgres(tx, rule, subject, deps)) fired++;
  }
  if (fired > 0) await wakeAfter(tx, deps);
  return fired;
}
