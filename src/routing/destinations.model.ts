import type { FieldErrors } from "../shared/errors.ts";
import { type FilterSaveLimits, validateFilters } from "./filters.model.ts";
import { asObject, checkName } from "./sources.model.ts";

export const DESTINATION_TYPES = ["http", "slack", "discord", "telegram"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];
export const HTTP_METHODS = ["POST", "PUT", "PATCH", "GET"] as const;
export const PRIORITIES = ["normal", "high"] as const;
export type Priority = (typeof PRIORITIES)[number];
export const DEFAULT_MAX_RETRIES = 15;
export const MAX_RETRIES_LIMIT = 15;
/** How long a replaced signing secret keeps signing after a rotation (decisions.md §8). */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

/** The settings of a destination as written (templates such as `{{TOKEN}}` kept verbatim). */
export interface DestinationSettings {
  name: string;
  type: DestinationType;
  priority: Priority;
  url: string | null;
  method: string | null;
  headers: Record<string, string> | null;
  maxRetries: number;
  webhookUrl: string | null;
  botToken: string | null;
  chatId: string | null;
  filters: unknown[];
  transformationId: string | null;
  /** http: the event's sub-path and query are appended to `url` (decisions §15). */
  pathForwarding: boolean;
}

/** A stored destination (the sealed secrets stay in the repo). */
export interface Destination extends DestinationSettings {
  id: string;
  bridgeId: string;
  organizationId: string;
  createdAt: string;
  updatedAt: string;
}

/** What validation needs from outside: the outbound address policy. */
export interface DestinationChecks {
  urlProblem(url: string): string | null;
  /** What one destination's filters may hold and cost to compile. */
  filterLimits?: FilterSaveLimits;
  /** Whether the organization has this transformation (set per organization by the service). */
  transformationExists?(id: string): boolean;
}

type Raw = Record<string, unknown>;

function checkUrl(value: unknown, field: string, errors: FieldErrors, checks: DestinationChecks) {
  if (typeof value !== "string" || value === "") {
    errors[field] = ["is required"];
    return null;
  }
  // A whole-URL template is resolved at send time; only a literal URL can be checked now.
  if (/^\{\{[A-Z][A-Z0-9_]*\}\}$/.test(value)) return value;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    errors[field] = ["must be an absolute http or https URL"];
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    errors[field] = ["must be an absolute http or https URL"];
    return null;
  }
  const problem = value.includes("{{") ? null : checks.urlProblem(value);
  if (problem) errors[field] = [problem];
  return value;
}

function checkText(value: unknown, field: string, errors: FieldErrors): string | null {
  if (typeof value !== "string" || value === "") {
    errors[field] = ["is required"];
    return null;
  }
  return value;
}

function checkHeaders(value: unknown, field: string, errors: FieldErrors) {
  if (value === undefined || value === null) return null;
  const ok =
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.entries(value as Raw).every(
      ([name, v]) => typeof v === "string" && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name),
    );
  if (!ok) errors[field] = ["must map header names to string values"];
  return ok ? (value as Record<string, string>) : null;
}

function checkHttp(raw: Raw, p: string, errors: FieldErrors, checks: DestinationChecks) {
  const url = checkUrl(raw.url, `${p}url`, errors, checks);
  const method = raw.method ?? "POST";
  if (typeof method !== "string" || !(HTTP_METHODS as readonly string[]).includes(method)) {
    errors[`${p}method`] = [`must be one of ${HTTP_METHODS.join(", ")}`];
  }
  const retries = raw.max_retries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isInteger(retries) || (retries as number) < 0 || (retries as number) > 15) {
    errors[`${p}max_retries`] = [`must be a whole number from 0 to ${MAX_RETRIES_LIMIT}`];
  }
  const pathForwarding = raw.path_forwarding ?? true;
  if (typeof pathForwarding !== "boolean") errors[`${p}path_forwarding`] = ["must be a boolean"];
  return {
    url,
    method: typeof method === "string" ? method : "POST",
    headers: checkHeaders(raw.headers, `${p}headers`, errors),
    maxRetries: Number.isInteger(retries) ? (retries as number) : DEFAULT_MAX_RETRIES,
    pathForwarding: pathForwarding !== false,
  };
}

/**
 * Validates one destination object (create, or a whole replacement on update) and gives its
 * settings; `errors` keys are prefixed with `prefix` (e.g. `destinations[0].`).
 */
export function parseDestination(
  body: unknown,
  checks: DestinationChecks,
  prefix = "",
): { settings: DestinationSettings; errors: FieldErrors } {
  const raw = asObject(body);
  const p = prefix;
  const errors: FieldErrors = {};
  const name = checkName(raw.name, `${p}name`, errors);
  const type = raw.type ?? "http";
  if (!(DESTINATION_TYPES as readonly unknown[]).includes(type)) {
    errors[`${p}type`] = [`must be one of ${DESTINATION_TYPES.join(", ")}`];
  }
  const priority = raw.priority ?? "normal";
  if (!(PRIORITIES as readonly unknown[]).includes(priority)) {
    errors[`${p}priority`] = ["must be normal or high"];
  }
  const settings: DestinationSettings = {
    name,
    type: type as DestinationType,
    priority: priority as Priority,
    url: null,
    method: null,
    headers: null,
    maxRetries: DEFAULT_MAX_RETRIES,
    webhookUrl: null,
    botToken: null,
    chatId: null,
    filters: [],
    transformationId: null,
    pathForwarding: true,
  };
  if (type === "http") Object.assign(settings, checkHttp(raw, p, errors, checks));
  if (type === "slack" || type === "discord") {
    settings.webhookUrl = checkUrl(raw.webhook_url, `${p}webhook_url`, errors, checks);
  }
  if (type === "telegram") {
    settings.botToken = checkText(raw.bot_token, `${p}bot_token`, errors);
    settings.chatId = checkText(raw.chat_id, `${p}chat_id`, errors);
  }
  if (type !== "http" && raw.max_retries !== undefined) {
    const retries = raw.max_retries;
    if (!Number.isInteger(retries) || (retries as number) < 0 || (retries as number) > 15) {
      errors[`${p}max_retries`] = [`must be a whole number from 0 to ${MAX_RETRIES_LIMIT}`];
    } else settings.maxRetries = retries as number;
  }
  const filters = raw.filters ?? [];
  const filterErrors = validateFilters(filters, checks.filterLimits);
  for (const [key, messages] of Object.entries(filterErrors)) errors[`${p}${key}`] = messages;
  if (Object.keys(filterErrors).length === 0) settings.filters = filters as unknown[];
  const transformationId = raw.transformation_id;
  if (transformationId !== undefined && transformationId !== null) {
    if (typeof transformationId === "string" && checks.transformationExists?.(transformationId)) {
      settings.transformationId = transformationId;
    } else {
      errors[`${p}transformation_id`] = ["names no transformation of this organization"];
    }
  }
  return { settings, errors };
}
