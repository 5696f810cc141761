// What a key-event alert says (decisions.md §15): the key as it was when the condition was met
// (stored with the firing, never the key itself) and the channel event every channel renders.
import type { ApiKeyEvent, ApiKeySummary } from "../auth/api-keys.ports.ts";
import type { ChannelEvent } from "../delivery/channels/channels.model.ts";
import { type AlertRule, alertRuleData, type ConditionType } from "./alerts.model.ts";

export const API_KEY_CONDITIONS = [
  "api_key_created",
  "api_key_revoked",
  "api_key_expiring",
  "api_key_denied_ip",
] as const satisfies readonly ConditionType[];
export type ApiKeyCondition = (typeof API_KEY_CONDITIONS)[number];

export const isApiKeyCondition = (type: ConditionType): type is ApiKeyCondition =>
  (API_KEY_CONDITIONS as readonly string[]).includes(type);

/** The condition an event meets (expiry is the scheduler's, not an event's). */
export const CONDITION_OF_EVENT: Record<ApiKeyEvent["kind"], ApiKeyCondition> = {
  created: "api_key_created",
  revoked: "api_key_revoked",
  denied_ip: "api_key_denied_ip",
};

/** A firing's stored document for a key event, in the API's snake_case. */
export interface ApiKeySnapshot {
  api_key: {
    id: string;
    name: string;
    role: string;
    expires_at: string | null;
  };
  /** Where a refused request came from (api_key_denied_ip), else null. */
  ip: string | null;
}

export function apiKeySnapshot(key: ApiKeySummary, ip: string | null): ApiKeySnapshot {
  return {
    api_key: { id: key.id, name: key.name, role: key.role, expires_at: key.expiresAt },
    ip,
  };
}

/** The made-up key a rule's test alert shows. */
export function sampleApiKeySnapshot(at: string): ApiKeySnapshot {
  return {
    api_key: {
      id: "00000000-0000-0000-0000-000000000000",
      name: "Sample key",
      role: "member",
      expires_at: at,
    },
    ip: "192.0.2.1",
  };
}

export const isApiKeySnapshot = (snapshot: object): snapshot is ApiKeySnapshot =>
  "api_key" in snapshot;

const days = (value: number) => `${value} day${value === 1 ? "" : "s"}`;

function describe(condition: AlertRule["condition"], snapshot: ApiKeySnapshot) {
  const { name, expires_at } = snapshot.api_key;
  switch (condition.type as ApiKeyCondition) {
    case "api_key_created":
      return { headline: "API key created", text: `The API key ${name} was created.` };
    case "api_key_revoked":
      return { headline: "API key revoked", text: `The API key ${name} was revoked.` };
    case "api_key_expiring":
      return {
        headline: `API key expires within ${days(condition.value ?? 0)}`,
        text: `The API key ${name} expires at ${expires_at}.`,
      };
    case "api_key_denied_ip":
      return {
        headline: "API key used from a refused address",
        text: `The API key ${name} was used from ${snapshot.ip ?? "an unknown address"}, which its allowlist does not include; the request was refused.`,
      };
  }
}

/**
 * A key alert as a channel event; `data` is `{alert_id, test, alert_rule: {id, name, condition},
 * api_key: {id, name, role, expires_at}, ip}` (docs/alerts.md).
 */
export function apiKeyAlertEvent(alert: {
  alertId: string;
  test: boolean;
  rule: Pick<AlertRule, "id" | "name" | "condition">;
  snapshot: ApiKeySnapshot;
  firedAt: string;
}): ChannelEvent {
  const { headline, text } = describe(alert.rule.condition, alert.snapshot);
  return {
    kind: alert.rule.condition.type.replace("api_key_", "api_key."),
    title: `${alert.test ? "[test] " : ""}${headline}: ${alert.snapshot.api_key.name}`,
    text: `${text}\nAlert rule: ${alert.rule.name}.`,
    occurredAt: alert.firedAt,
    data: {
      alert_id: alert.alertId,
      test: alert.test,
      alert_rule: alertRuleData(alert.rule),
      ...alert.snapshot,
    },
  };
}
