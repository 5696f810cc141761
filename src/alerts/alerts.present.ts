import type { DeliveryRecord } from "../delivery/delivery.ports.ts";
import type { AlertChannelType, AlertRule, ConditionType } from "./alerts.model.ts";
import type { AlertFiring } from "./alerts.repo.ts";
import { isApiKeySnapshot } from "./api-key-alert.model.ts";

/** A rule as the API shows it; `channel.signing_secret` only in the answer that makes one. */
export interface RuleView {
  id: string;
  name: string;
  condition: { type: ConditionType; value?: number; monitor_ids?: string[] };
  channel: Record<string, unknown> & { type: AlertChannelType; signing_secret?: string };
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export function presentRule(rule: AlertRule, signingSecret?: string): RuleView {
  const condition: RuleView["condition"] = { type: rule.condition.type };
  if (rule.condition.value !== null) condition.value = rule.condition.value;
  if (rule.condition.monitorIds) condition.monitor_ids = rule.condition.monitorIds;
  const channel: RuleView["channel"] = { type: rule.channelType, ...rule.channel };
  if (signingSecret) channel.signing_secret = signingSecret;
  return {
    id: rule.id,
    name: rule.name,
    condition,
    channel,
    enabled: rule.enabled,
    created_at: rule.createdAt,
    updated_at: rule.updatedAt,
  };
}

/** One alert a rule sent, and how its delivery stands. */
export function presentFiring(firing: AlertFiring, delivery: DeliveryRecord | undefined) {
  // A key event's firing is about a key, not an issue (its id sits in the issue column).
  const { snapshot } = firing;
  const keyId = isApiKeySnapshot(snapshot) ? snapshot.api_key.id : null;
  return {
    id: firing.id,
    issue_id: keyId === null ? firing.issueId : null,
    ...(keyId === null ? {} : { api_key_id: keyId }),
    test: firing.test,
    created_at: firing.createdAt,
    delivery: delivery
      ? {
          id: delivery.id,
          status: delivery.status,
          attempts: delivery.attempts,
          status_code: delivery.lastStatusCode,
          error_type: delivery.lastErrorType,
          error_code: delivery.lastErrorCode,
          error_message: delivery.lastErrorMessage,
          next_attempt_at: delivery.nextAttemptAt,
        }
      : null,
  };
}
