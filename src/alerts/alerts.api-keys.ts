// When key rules fire (decisions.md §15): on a key event, inside the transaction that wrote its
// cause, and from the scheduler for keys about to expire. The firing's subject is the key, so a
// rule fires once per key (and, for a refused address, once per key and address).
import type { ApiKeyEvent, ApiKeyPorts, ApiKeySummary } from "../auth/api-keys.ports.ts";
import type { TxHandle } from "../db/db.tx.ts";
import { isoAt } from "../shared/clock.ts";
import {
  type AlertSubject,
  type FiringDeps,
  type PendingAlert,
  type ScheduledFiringDeps,
  writeAlert,
} from "./alerts.firing.ts";
import { conditionKey, DAY_MS } from "./alerts.model.ts";
import type { StoredRule } from "./alerts.repo.ts";
import { apiKeySnapshot, CONDITION_OF_EVENT } from "./api-key-alert.model.ts";

/** The scheduler's api_key_expiring check: every 10 minutes (days are the unit), and at start. */
export const API_KEY_EXPIRING_JOB = "alerts.api-key-expiring";
export const API_KEY_EXPIRING_PATTERN = "*/10 * * * *";
/** How many soon-expiring keys one run looks at (soonest first). */
export const EXPIRING_KEYS_PER_RUN = 5000;

/** What a key alert is about: the key (its id is the once-subject) as it was, and the address. */
const keySubject = (key: ApiKeySummary, ip: string | null, onceKey: string): AlertSubject => ({
  issueId: key.id,
  conditionKey: onceKey,
  test: false,
  snapshot: apiKeySnapshot(key, ip),
});

/** The alerts a key event raises: every enabled rule of the key's organization on that event. */
export function keyEventAlerts(rules: readonly StoredRule[], event: ApiKeyEvent): PendingAlert[] {
  const type = CONDITION_OF_EVENT[event.kind];
  return rules
    .filter(({ rule }) => rule.condition.type === type)
    .map(({ rule }) => {
      // A refused address alerts once per address: a second one is news, a retry loop is not.
      const once =
        type === "api_key_denied_ip"
          ? `${conditionKey(rule.condition)}:${event.ip ?? "unknown"}`
          : conditionKey(rule.condition);
      return { rule, subject: keySubject(event.key, event.ip, once) };
    });
}

/** The auth room's key events, in the transaction that wrote their cause. */
export function fireForApiKeyEvent(tx: TxHandle, event: ApiKeyEvent, deps: FiringDeps): number {
  let fired = 0;
  for (const { rule, subject } of keyEventAlerts(
    deps.repo.enabledRules(event.key.organizationId),
    event,
  )) {
    if (writeAlert(tx, rule, subject, deps)) fired++;
  }
  // Claimed at the end of this turn, after the cause's transaction commits.
  if (fired > 0) deps.delivery.wake();
  return fired;
}

export interface ExpiringKeysDeps extends ScheduledFiringDeps {
  keys: Pick<ApiKeyPorts, "keysExpiringBetween">;
}

/**
 * The scheduler's check of `api_key_expiring`: active keys that expire within a rule's days fire
 * it once. One query serves every rule (keys expiring within the longest rule's days).
 */
export async function fireForExpiringKeys(deps: ExpiringKeysDeps): Promise<number> {
  const rules = (await deps.store.enabledRulesOfType("api_key_expiring")).map(
    (stored) => stored.rule,
  );
  if (rules.length === 0) return 0;
  const now = deps.clock.now();
  const longest = Math.max(...rules.map((rule) => rule.condition.value ?? 0));
  const keys = await deps.keys.keysExpiringBetween(
    isoAt(now),
    isoAt(now + longest * DAY_MS),
    EXPIRING_KEYS_PER_RUN,
  );
  if (keys.length === EXPIRING_KEYS_PER_RUN) {
    deps.logger.warn("more expiring API keys than one api_key_expiring check reads", {
      limit: EXPIRING_KEYS_PER_RUN,
    });
  }
  const byOrganization = Map.groupBy(rules, (rule) => rule.organizationId);
  const alerts: PendingAlert[] = [];
  for (const key of keys) {
    for (const rule of byOrganization.get(key.organizationId) ?? []) {
      const within = now + (rule.condition.value ?? 0) * DAY_MS;
      if (key.expiresAt === null || Date.parse(key.expiresAt) > within) continue;
      alerts.push({ rule, subject: keySubject(key, null, conditionKey(rule.condition)) });
    }
  }
  const fired = alerts.length > 0 ? (await deps.writeAlerts(alerts)).length : 0;
  if (fired > 0) deps.wake();
  return fired;
}
