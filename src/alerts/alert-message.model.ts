// What an alert says: the issue as it was when the rule's condition was met (stored with the
// firing), and the document every channel renders from it. The webhook channel sends the
// document itself; chat channels send their platform's summary of it (chat.format.ts).
import type { ChannelEvent } from "../delivery/channels/channels.model.ts";
import { issueAlertMessage } from "../delivery/channels/chat.format.ts";
import type { IssueContext, IssueRecord } from "../issues/issues.ports.ts";
import {
  type AlertCondition,
  type AlertRule,
  alertRuleData,
  type ConditionType,
  MONITOR_CONDITIONS,
} from "./alerts.model.ts";
import type { ApiKeyCondition } from "./api-key-alert.model.ts";
import {
  type MonitorAlertSnapshot,
  monitorAlertEvent,
  sampleMonitorSnapshot,
} from "./monitor-alert.model.ts";

/** An issue as an alert shows it: the issue API's fields, snake_case. */
export interface AlertIssue {
  id: string;
  bridge_id: string;
  destination_id: string;
  status: string;
  error_type: string;
  error_code: string;
  error_message: string;
  occurrence_count: number;
  first_occurrence_at: string;
  last_occurrence_at: string;
  resolved_at: string | null;
  last_success_at: string | null;
}

/** What a firing stores: the issue and the names around it, read when the condition was met. */
export interface AlertSnapshot {
  issue: AlertIssue;
  context: IssueContext;
}

/** What a firing stores: an issue, or a monitor's change. */
export type FiringSnapshot = AlertSnapshot | MonitorAlertSnapshot;

export function snapshotOf(issue: IssueRecord, context: IssueContext): AlertSnapshot {
  return {
    issue: {
      id: issue.id,
      bridge_id: issue.bridgeId,
      destination_id: issue.destinationId,
      status: issue.status,
      error_type: issue.errorType,
      error_code: issue.errorCode,
      error_message: issue.errorMessage,
      occurrence_count: issue.occurrenceCount,
      first_occurrence_at: issue.firstOccurrenceAt,
      last_occurrence_at: issue.lastOccurrenceAt,
      resolved_at: issue.resolvedAt,
      last_success_at: issue.lastSuccessAt,
    },
    context: { ...context },
  };
}

/**
 * The made-up issue a rule's test alert shows: a plausible failure on a destination named so
 * nobody mistakes it for a real one (the document says `test: true` as well).
 */
export function sampleSnapshot(rule: AlertRule, at: string): FiringSnapshot {
  if (MONITOR_CONDITIONS.includes(rule.condition.type)) return sampleMonitorSnapshot(rule, at);
  const count = rule.condition.type === "occurrence_threshold" ? (rule.condition.value ?? 1) : 3;
  return {
    issue: {
      id: "00000000-0000-0000-0000-000000000000",
      bridge_id: "00000000-0000-0000-0000-000000000001",
      destination_id: "00000000-0000-0000-0000-000000000002",
      status: "open",
      error_type: "http_error",
      error_code: "500",
      error_message: "the destination answered 500 Internal Server Error",
      occurrence_count: count,
      first_occurrence_at: at,
      last_occurrence_at: at,
      resolved_at: null,
      last_success_at: null,
    },
    context: {
      bridgeName: "Sample bridge",
      sourceName: "Sample source",
      destinationName: "Sample destination",
      destinationType: "http",
      destinationPriority: rule.condition.type === "high_priority_destination" ? "high" : "normal",
    },
  };
}

const plural = (value: number, one: string) => `${value} ${one}${value === 1 ? "" : "s"}`;

function headline(condition: AlertCondition): string {
  const value = condition.value ?? 0;
  // Key conditions have their own message (api-key-alert.model.ts).
  const headlines: Record<Exclude<ConditionType, ApiKeyCondition>, string> = {
    issue_created: "New issue",
    occurrence_threshold: `Issue reached ${plural(value, "failure")}`,
    open_for_days: `Issue open for ${plural(value, "day")}`,
    high_priority_destination: "High-priority destination failing",
    monitor_down: "Monitor down",
    monitor_up: "Monitor up",
    tls_expiring: "Certificate expiring",
  };
  return headlines[condition.type as keyof typeof headlines] ?? condition.type;
}

/** One alert as sent: which rule, which firing, the issue as stored, and where to look. */
export interface AlertToSend {
  alertId: string;
  test: boolean;
  rule: Pick<AlertRule, "id" | "name" | "condition">;
  snapshot: FiringSnapshot;
  firedAt: string;
  /** The base of links in Weir (`base_url`), without a trailing slash. */
  linkBase: string;
}

/**
 * The alert as a channel event. `data` is the webhook document's machine-readable part:
 * `{alert_id, test, alert_rule: {id, name, condition}, issue: {...}, bridge: {id, name},
 * source: {name}, destination: {id, name, type, priority}, issue_url}` (docs/alerts.md).
 */
export function alertEvent(alert: AlertToSend): ChannelEvent {
  const snapshot = alert.snapshot;
  if ("monitor" in snapshot) return monitorAlertEvent({ ...alert, snapshot });
  const { issue, context } = snapshot;
  // The web UI page of the issue: a logged-in browser opens it; a logged-out one logs in first.
  const issueUrl = `${alert.linkBase}/issues/${issue.id}`;
  const kind = `issue.${alert.rule.condition.type === "issue_created" ? "created" : alert.rule.condition.type}`;
  return issueAlertMessage({
    kind,
    headline: headline(alert.rule.condition),
    test: alert.test,
    ruleName: alert.rule.name,
    bridgeName: context.bridgeName,
    sourceName: context.sourceName,
    destinationName: context.destinationName,
    destinationType: context.destinationType,
    errorType: issue.error_type,
    errorCode: issue.error_code,
    errorMessage: issue.error_message,
    occurrenceCount: issue.occurrence_count,
    firstOccurrenceAt: issue.first_occurrence_at,
    lastOccurrenceAt: issue.last_occurrence_at,
    status: issue.status,
    occurredAt: alert.firedAt,
    link: issueUrl,
    data: {
      alert_id: alert.alertId,
      test: alert.test,
      alert_rule: alertRuleData(alert.rule),
      issue,
      bridge: { id: issue.bridge_id, name: context.bridgeName },
      source: { name: context.sourceName },
      destination: {
        id: issue.destination_id,
        name: context.destinationName,
        type: context.destinationType,
        priority: context.destinationPriority,
      },
      issue_url: issueUrl,
    },
  });
}
