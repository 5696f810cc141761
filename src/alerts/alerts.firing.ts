// When rules fire: on a change to an issue (inside the transaction that recorded the failed
// attempt), from the scheduler for issues open too long, and on demand for a test. Each alert is
// a firing row and a delivery row written together; the firing's unique (rule, issue, condition)
// key makes a rule fire at most once per issue per condition, whatever races.
import type { TxHandle } from "../db/db.tx.ts";
import type { DeliveryPorts, DeliveryRecord } from "../delivery/delivery.ports.ts";
import type { IssueChange, IssuesPorts } from "../issues/issues.ports.ts";
import { type Clock, isoAt } from "../shared/clock.ts";
import type { Ids } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { type FiringSnapshot, snapshotOf } from "./alert-message.model.ts";
import {
  type AlertRule,
  changeMeets,
  conditionKey,
  DAY_MS,
  openLongEnough,
} from "./alerts.model.ts";
import type { AlertFiring, AlertsRepo } from "./alerts.repo.ts";
import type { ApiKeySnapshot } from "./api-key-alert.model.ts";

/** Retries after an alert's first attempt, as a destination's default (decisions.md §8). */
export const ALERT_MAX_RETRIES = 15;
/**
 * How many old, unclosed issues of one organization a scheduler run looks at (oldest first):
 * per organization, so one organization's issues never push another's out of the check.
 */
export const OPEN_ISSUES_PER_ORGANIZATION = 5000;

export interface FiringDeps {
  repo: AlertsRepo;
  delivery: Pick<DeliveryPorts, "enqueue" | "wake">;
  clock: Clock;
  ids: Ids;
}

/** The outbox's breaker key of a rule's channel: one rule's failing channel holds only its own alerts. */
export const alertDestinationKey = (ruleId: string) => `alert:${ruleId}`;

/** What one alert is about: its subject, the key that makes it fire once, and what it shows. */
export interface AlertSubject {
  issueId: string | null;
  conditionKey: string;
  test: boolean;
  snapshot: FiringSnapshot | ApiKeySnapshot;
}

/**
 * Writes one alert (firing + delivery) in `tx`; null when the rule already fired under this
 * subject's key. The caller wakes the outbox after its commit.
 */
export function writeAlert(
  tx: TxHandle,
  rule: AlertRule,
  subject: AlertSubject,
  deps: FiringDeps,
): { firing: AlertFiring; delivery: DeliveryRecord } | null {
  const firing: AlertFiring = {
    id: deps.ids.uuid(),
    organizationId: rule.organizationId,
    ruleId: rule.id,
    ...subject,
    createdAt: isoAt(deps.clock.now()),
  };
  if (!deps.repo.insertFiring(firing)) return null;
  const [delivery] = deps.delivery.enqueue(tx, [
    {
      kind: "alert",
      organizationId: rule.organizationId,
      subjectId: firing.id,
      destinationKey: alertDestinationKey(rule.id),
      maxRetries: ALERT_MAX_RETRIES,
    },
  ]);
  if (!delivery) throw new Error("the outbox wrote no delivery for an alert");
  return { firing, delivery };
}

/**
 * Writes one alert about an issue (a test alert when `issueId` is null); null when the rule
 * already fired for this issue under this condition.
 */
export function fire(
  tx: TxHandle,
  rule: AlertRule,
  issueId: string | null,
  snapshot: FiringSnapshot | ApiKeySnapshot,
  deps: FiringDeps,
): { firing: AlertFiring; delivery: DeliveryRecord } | null {
  const once = conditionKey(rule.condition);
  return writeAlert(
    tx,
    rule,
    { issueId, conditionKey: once, test: issueId === null, snapshot },
    deps,
  );
}

export interface ChangeFiringDeps extends FiringDeps {
  issues: Pick<IssuesPorts, "listUnclosedOfDestination">;
}

/**
 * The issues room's listener: every enabled rule of the organization whose condition the change
 * meets fires once for the issue. Runs inside the attempt's transaction, so it only writes rows.
 */
export function fireForChange(tx: TxHandle, change: IssueChange, deps: ChangeFiringDeps): number {
  if (isBreakerEcho(change, deps)) return 0;
  let fired = 0;
  for (const { rule } of deps.repo.enabledRules(change.issue.organizationId)) {
    if (!changeMeets(rule.condition, change)) continue;
    if (fire(tx, rule, change.issue.id, snapshotOf(change.issue, change.context), deps)) fired++;
  }
  // Claimed at the end of this turn, after the attempt's transaction commits.
  if (fired > 0) deps.delivery.wake();
  return fired;
}

/**
 * A circuit_open issue on a destination that has another unclosed issue is that issue's echo:
 * the breaker opened because of those failures, and deliveries now wait for it. Its own alert
 * would tell the operator twice about one broken destination, so rules stay quiet on it; a
 * circuit_open issue alone (its cause already closed) alerts as any other.
 */
function isBreakerEcho(change: IssueChange, deps: ChangeFiringDeps): boolean {
  const { issue } = change;
  if (issue.errorType !== "circuit_breaker_error") return false;
  return deps.issues
    .listUnclosedOfDestination(issue.organizationId, issue.destinationId)
    .some((other) => other.id !== issue.id && other.errorType !== "circuit_breaker_error");
}

/** The organization's unclosed issues opened before its shortest rule's cutoff. */
async function openIssuesOf(
  organizationId: string,
  rules: readonly AlertRule[],
  now: number,
  deps: OpenIssuesDeps,
) {
  const shortest = Math.min(...rules.map((rule) => rule.condition.value ?? Infinity));
  const cutoff = isoAt(now - shortest * DAY_MS);
  const limit = OPEN_ISSUES_PER_ORGANIZATION;
  const open = await deps.issues.listUnclosedOpenedBefore(organizationId, cutoff, limit);
  if (open.length === limit) {
    deps.logger.warn("more unclosed old issues than one open_for_days check reads", {
      organization_id: organizationId,
      limit,
    });
  }
  return open;
}

export interface OpenIssuesDeps extends FiringDeps {
  issues: Pick<IssuesPorts, "listUnclosedOpenedBefore">;
  tx<T>(fn: (tx: TxHandle) => T): T;
  logger: Logger;
}

/**
 * The scheduler's check of `open_for_days`: issues not closed since they were opened (created or
 * last reopened) at least the rule's days ago fire once. One query per organization with rules:
 * its issues opened before its shortest rule's cutoff, then each rule's own cutoff.
 */
export async function fireForOpenIssues(deps: OpenIssuesDeps): Promise<number> {
  const rules = deps.repo.enabledRulesOfType("open_for_days").map((stored) => stored.rule);
  if (rules.length === 0) return 0;
  const now = deps.clock.now();
  const byOrganization = Map.groupBy(rules, (rule) => rule.organizationId);
  const candidates = await Promise.all(
    [...byOrganization].map(async ([organizationId, own]) => ({
      own,
      open: await openIssuesOf(organizationId, own, now, deps),
    })),
  );
  const fired = deps.tx((tx) => {
    let count = 0;
    for (const { own, open } of candidates) {
      for (const { issue, context } of open) {
        for (const rule of own) {
          if (!openLongEnough(rule.condition, issue.openedAt, now)) continue;
          if (fire(tx, rule, issue.id, snapshotOf(issue, context), deps)) count++;
        }
      }
    }
    return count;
  });
  if (fired > 0) deps.delivery.wake();
  return fired;
}
