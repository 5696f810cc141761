// Alert rules (decisions.md §8): a condition on issues and the channel an alert goes to. Pure:
// validation, which change meets which condition, and secret filling of a channel's settings.
import { channelProvider } from "../delivery/channels/channels.registry.ts";
import type { IssueChange } from "../issues/issues.ports.ts";
import type { FieldErrors } from "../shared/errors.ts";
import { substituteSecrets } from "../shared/secret-template.ts";
import { validateEmailChannel } from "./alerts.email.ts";

export const CONDITION_TYPES = [
  "issue_created",
  "occurrence_threshold",
  "open_for_days",
  "high_priority_destination",
  // Key events (decisions.md §15): heard from the auth room, not from issues.
  "api_key_created",
  "api_key_revoked",
  "api_key_expiring",
  "api_key_denied_ip",
  "monitor_down",
  "monitor_up",
  "tls_expiring",
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** Conditions on uptime monitors (decisions.md §13, §15): they take optional `monitor_ids`. */
export const MONITOR_CONDITIONS: readonly ConditionType[] = [
  "monitor_down",
  "monitor_up",
  "tls_expiring",
];
const MAX_MONITOR_IDS = 1000;

export const CHANNEL_TYPES = [
  "slack",
  "discord",
  "telegram",
  "webhook",
  "ntfy",
  "gotify",
  // Alerts only: sent by the operator's mail server, not by the outbound HTTP sender.
  "email",
] as const;
export type AlertChannelType = (typeof CHANNEL_TYPES)[number];

export interface AlertCondition {
  type: ConditionType;
  /**
   * occurrence_threshold: a count (whole, ≥ 1); open_for_days, api_key_expiring and tls_expiring:
   * days (> 0); otherwise null.
   */
  value: number | null;
  /** Monitor conditions only: the monitors the rule hears (null: every monitor). */
  monitorIds?: string[] | null;
}

/** A monitor's state change (or expiring certificate), heard in the check's transaction. */
export interface MonitorChange {
  organizationId: string;
  condition: "monitor_down" | "monitor_up" | "tls_expiring";
  /** Once per subject per rule: the state change's id, or the certificate's expiry day. */
  subjectId: string;
  monitor: { id: string; name: string; type: string; target: string | null };
  from: string;
  to: string;
  at: string;
  reason: string | null;
  /** monitor_up: how long it was down. */
  downtimeSeconds: number | null;
  tlsDaysRemaining: number | null;
}

/** A channel's settings as validated by its provider, templates kept verbatim. */
export type ChannelSettings = Record<string, unknown>;

export interface AlertRule {
  id: string;
  organizationId: string;
  name: string;
  condition: AlertCondition;
  channelType: AlertChannelType;
  channel: ChannelSettings;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** The fields a create or update names, validated. */
export interface RuleInput {
  name?: string;
  condition?: AlertCondition;
  channel?: { type: AlertChannelType; settings: ChannelSettings };
  enabled?: boolean;
}

export const NAME_MAX = 255;
const MAX_THRESHOLD = 1_000_000_000;
const MAX_DAYS = 3650;
export const DAY_MS = 86_400_000;

const asRecord = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

function checkCondition(raw: unknown, errors: FieldErrors): AlertCondition | undefined {
  const record = asRecord(raw);
  if (!record) {
    errors.condition = ["is required: {type, value?}"];
    return undefined;
  }
  const type = record.type as ConditionType;
  if (!CONDITION_TYPES.includes(type)) {
    errors["condition.type"] = [`must be one of ${CONDITION_TYPES.join(", ")}`];
    return undefined;
  }
  const value = record.value ?? null;
  const monitorIds = checkMonitorIds(type, record.monitor_ids, errors);
  if (monitorIds === undefined) return undefined;
  if (type === "occurrence_threshold") {
    if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > MAX_THRESHOLD) {
      errors["condition.value"] = ["must be a whole number of at least 1 (the occurrence count)"];
      return undefined;
    }
  } else if (type === "open_for_days" || type === "api_key_expiring" || type === "tls_expiring") {
    const days = value as number;
    if (typeof value !== "number" || !Number.isFinite(days) || days <= 0 || days > MAX_DAYS) {
      errors["condition.value"] = [`must be a number of days above 0 and at most ${MAX_DAYS}`];
      return undefined;
    }
  } else if (value !== null) {
    errors["condition.value"] = [`is not taken by ${type}`];
    return undefined;
  }
  return MONITOR_CONDITIONS.includes(type)
    ? { type, value: value as number | null, monitorIds }
    : { type, value: value as number | null };
}

/** `monitor_ids`: a list of ids on monitor conditions only; undefined after an error. */
function checkMonitorIds(
  type: ConditionType,
  raw: unknown,
  errors: FieldErrors,
): string[] | null | undefined {
  if (raw === undefined || raw === null) return null;
  if (!MONITOR_CONDITIONS.includes(type)) {
    errors["condition.monitor_ids"] = [`is not taken by ${type}`];
    return undefined;
  }
  const ok =
    Array.isArray(raw) &&
    raw.length <= MAX_MONITOR_IDS &&
    raw.every((id) => typeof id === "string" && id !== "");
  if (!ok) {
    errors["condition.monitor_ids"] = [`must be a list of at most ${MAX_MONITOR_IDS} monitor ids`];
    return undefined;
  }
  return [...new Set(raw as string[])];
}

/** What channel validation needs of the server: the address policy and whether mail is set up. */
export interface ChannelChecks {
  checkTarget: (url: string) => string | null;
  smtpConfigured?: boolean;
}

function checkChannel(
  raw: unknown,
  errors: FieldErrors,
  checks: ChannelChecks,
): RuleInput["channel"] {
  const record = asRecord(raw);
  if (!record) {
    errors.channel = ["is required: {type, ...settings}"];
    return undefined;
  }
  const type = record.type as AlertChannelType;
  const provider = !CHANNEL_TYPES.includes(type)
    ? null
    : type === "email"
      ? { validate: () => validateEmailChannel(record, checks.smtpConfigured === true) }
      : channelProvider(type);
  if (!provider) {
    errors["channel.type"] = [`must be one of ${CHANNEL_TYPES.join(", ")}`];
    return undefined;
  }
  const result = provider.validate(record, { checkTarget: checks.checkTarget });
  if (!result.ok) {
    for (const [field, messages] of Object.entries(result.errors)) {
      errors[`channel.${field}`] = messages;
    }
    return undefined;
  }
  return { type, settings: result.config as ChannelSettings };
}

/**
 * Validates a create (`partial` false: name, condition and channel required) or an update (only
 * the fields present). Unknown condition or channel types, bad values and channel addresses the
 * outbound policy refuses are errors keyed by field (`condition.value`, `channel.webhook_url`).
 */
export function parseRuleInput(
  body: unknown,
  options: { partial: boolean } & ChannelChecks,
): { input: RuleInput; errors: FieldErrors } {
  const raw = asRecord(body) ?? {};
  const errors: FieldErrors = {};
  const input: RuleInput = {};
  const present = (key: string) => !options.partial || raw[key] !== undefined;
  if (present("name")) {
    const name = raw.name;
    if (typeof name !== "string" || name.trim() === "") errors.name = ["is required"];
    else if (name.length > NAME_MAX) errors.name = [`must be at most ${NAME_MAX} characters`];
    else input.name = name.trim();
  }
  if (present("condition")) input.condition = checkCondition(raw.condition, errors);
  if (present("channel")) input.channel = checkChannel(raw.channel, errors, options);
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled !== "boolean") errors.enabled = ["must be true or false"];
    else input.enabled = raw.enabled;
  }
  return { input, errors };
}

/** The part of the once-per-issue key that names the condition: changing it may fire again. */
export const conditionKey = (condition: AlertCondition): string =>
  condition.value === null ? condition.type : `${condition.type}:${condition.value}`;

/** A rule as an alert's data names it: `{id, name, condition: {type, value}}` (docs/alerts.md). */
export const alertRuleData = (rule: Pick<AlertRule, "id" | "name" | "condition">) => ({
  id: rule.id,
  name: rule.name,
  condition: { type: rule.condition.type, value: rule.condition.value },
});

/**
 * Whether a change to an issue meets a rule's condition. `issue_created` hears creations only
 * (a reopened issue is the same issue: once per issue); a count reaching the threshold and an
 * issue on a high-priority destination are met by any change; `open_for_days` is the
 * scheduler's (it depends on time passing, not on a failure).
 */
export function changeMeets(condition: AlertCondition, change: IssueChange): boolean {
  switch (condition.type) {
    case "issue_created":
      return change.kind === "created";
    case "occurrence_threshold":
      return change.issue.occurrenceCount >= (condition.value ?? 1);
    case "high_priority_destination":
      return change.context.destinationPriority === "high";
    case "open_for_days":
    case "api_key_created":
    case "api_key_revoked":
    case "api_key_expiring":
    case "api_key_denied_ip":
    case "monitor_down":
    case "monitor_up":
    case "tls_expiring":
      return false;
  }
}

/** Whether a monitor rule hears this change: its condition, and the monitor among its ids. */
export function monitorChangeMeets(condition: AlertCondition, change: MonitorChange): boolean {
  if (condition.type !== change.condition) return false;
  if (condition.type === "tls_expiring") {
    const days = change.tlsDaysRemaining;
    if (days === null || condition.value === null || days > condition.value) return false;
  }
  return !condition.monitorIds || condition.monitorIds.includes(change.monitor.id);
}

/** Whether an issue opened at `openedAt` (ISO) has been open for the rule's days at `now`. */
export function openLongEnough(condition: AlertCondition, openedAt: string, now: number): boolean {
  if (condition.type !== "open_for_days" || condition.value === null) return false;
  return Date.parse(openedAt) <= now - condition.value * DAY_MS;
}

export type FilledSettings = { settings: ChannelSettings } | { missing: string };

/**
 * A channel's settings with every `{{NAME}}` filled in (string values, and the string values of
 * one nested object such as a webhook's headers); the first unknown name makes the send fail.
 */
export function fillSecrets(
  settings: ChannelSettings,
  lookup: (name: string) => string | undefined,
): FilledSettings {
  let missing: string | null = null;
  const fill = (value: unknown): unknown => {
    if (missing !== null) return value;
    if (typeof value === "string") {
      const result = substituteSecrets(value, lookup);
      if (result.ok) return result.text;
      missing = result.missing;
      return value;
    }
    const record = asRecord(value);
    if (!record) return value;
    return Object.fromEntries(Object.entries(record).map(([key, inner]) => [key, fill(inner)]));
  };
  const filled = fill(settings) as ChannelSettings;
  return missing !== null ? { missing } : { settings: filled };
}
