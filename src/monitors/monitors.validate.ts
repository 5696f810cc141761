import { validateFilters } from "../routing/filters.model.ts";
import { type FieldErrors, validationFailed } from "../shared/errors.ts";
import { dockerSettings } from "./monitors.docker.ts";
import {
  DEFAULT_INTERVAL_SECONDS,
  DEFAULT_TIMEOUT_SECONDS,
  HTTP_METHODS,
  MIN_INTERVAL_SECONDS,
  MONITOR_TYPES,
  type MonitorSettings,
  type MonitorType,
  parseStatusRanges,
  RECORD_TYPES,
  type RecordType,
} from "./monitors.model.ts";
import { pingSettings } from "./monitors.ping.ts";

/** A monitor's editable fields, checked. */
export interface MonitorDraft {
  name: string;
  type: MonitorType;
  settings: MonitorSettings;
  intervalSeconds: number;
  timeoutSeconds: number;
  retries: number;
  parentId: string | null;
  paused: boolean;
}

/** The save-time half of the outbound address policy (null: acceptable). */
export type UrlProblem = (url: string) => string | null;

type Fields = Record<string, unknown>;

const MAX_HEADERS = 50;
const MAX_BODY = 65_536;

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_-]{1,63})*\.?$/;
// `{{NAME}}` stands for a secret filled in at send time: judge the URL with a stand-in.
const withStandIns = (text: string) => text.replace(/\{\{\s*[A-Z][A-Z0-9_]*\s*\}\}/g, "secret");

/** The editable fields of a stored draft, as a request body would carry them. */
export function fieldsOfDraft(draft: MonitorDraft): Fields {
  return {
    ...draft.settings,
    name: draft.name,
    type: draft.type,
    interval_seconds: draft.intervalSeconds,
    timeout_seconds: draft.timeoutSeconds,
    retries: draft.retries,
    parent_id: draft.parentId,
    paused: draft.paused,
  };
}

/**
 * Checks a create body, or an update body laid over the current fields (`base`); every
 * problem is reported at once as a 422 naming its field.
 */
export function validateMonitor(body: unknown, base: Fields | null, urlProblem: UrlProblem) {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw validationFailed({ body: ["must be a JSON object"] });
  }
  const input: Fields = { ...(base ?? {}), ...(body as Fields) };
  const errors: FieldErrors = {};
  const fail = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const name = typeof input.name === "string" ? input.name.trim() : "";
  if (name === "" || name.length > 200) fail("name", "is required (1 to 200 characters)");
  const type = input.type as MonitorType;
  if (!MONITOR_TYPES.includes(type)) fail("type", `must be one of ${MONITOR_TYPES.join(", ")}`);
  const intervalSeconds = integerField(input, "interval_seconds", DEFAULT_INTERVAL_SECONDS, fail);
  if (intervalSeconds < MIN_INTERVAL_SECONDS || intervalSeconds > 86_400) {
    fail("interval_seconds", `must be between ${MIN_INTERVAL_SECONDS} and 86400`);
  }
  const timeoutSeconds = integerField(input, "timeout_seconds", DEFAULT_TIMEOUT_SECONDS, fail);
  if (timeoutSeconds < 1 || timeoutSeconds > 300) fail("timeout_seconds", "must be 1 to 300");
  const retries = integerField(input, "retries", 0, fail);
  if (retries < 0 || retries > 20) fail("retries", "must be 0 to 20");
  const parentId = input.parent_id ?? null;
  if (parentId !== null && (typeof parentId !== "string" || parentId === "")) {
    fail("parent_id", "must be a monitor id or null");
  }
  if (input.paused !== undefined && typeof input.paused !== "boolean") {
    fail("paused", "must be a boolean");
  }
  const settings = { ...settingsOf(type, input, urlProblem, fail), ...groupOf(input, fail) };
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  const draft: MonitorDraft = {
    name,
    type,
    settings,
    intervalSeconds,
    timeoutSeconds,
    retries,
    parentId: parentId as string | null,
    paused: input.paused === true,
  };
  return draft;
}

type Fail = (field: string, message: string) => void;

/** `group` (decisions.md §15): the heading a status page shows the monitor under; any type. */
function groupOf(input: Fields, fail: Fail): MonitorSettings {
  const group = input.group;
  if (group == null) return {};
  if (typeof group !== "string" || group.trim().length > 100) {
    fail("group", "must be a name of at most 100 characters");
    return {};
  }
  return group.trim() === "" ? {} : { group: group.trim() };
}

function integerField(input: Fields, field: string, fallback: number, fail: Fail): number {
  const value = input[field];
  if (value === undefined || value === null) return fallback;
  if (!Number.isInteger(value)) {
    fail(field, "must be a whole number");
    return fallback;
  }
  return value as number;
}

function settingsOf(type: MonitorType, input: Fields, urlProblem: UrlProblem, fail: Fail) {
  if (type === "http") return httpSettings(input, urlProblem, fail);
  if (type === "tcp") return tcpSettings(input, urlProblem, fail);
  if (type === "dns") return dnsSettings(input, fail);
  if (type === "docker") return dockerSettings(input, urlProblem, fail);
  if (type === "ping") return pingSettings(input, urlProblem, fail);
  return {};
}

function httpSettings(input: Fields, urlProblem: UrlProblem, fail: Fail): MonitorSettings {
  const url = typeof input.url === "string" ? input.url.trim() : "";
  const parsed = URL.canParse(withStandIns(url)) ? new URL(withStandIns(url)) : null;
  if (!parsed || !["http:", "https:"].includes(parsed.protocol) || url.length > 2048) {
    fail("url", "must be an absolute http:// or https:// URL (at most 2048 characters)");
  } else {
    const problem = urlProblem(withStandIns(url));
    if (problem) fail("url", problem);
  }
  const method = typeof input.method === "string" ? input.method.toUpperCase() : "GET";
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    fail("method", `must be one of ${HTTP_METHODS.join(", ")}`);
  }
  const headers = input.headers ?? {};
  const headersOk =
    typeof headers === "object" &&
    !Array.isArray(headers) &&
    Object.keys(headers as object).length <= MAX_HEADERS &&
    Object.values(headers as object).every((v) => typeof v === "string" && v.length <= 8192);
  if (!headersOk) fail("headers", `must be an object of at most ${MAX_HEADERS} string values`);
  if (input.body != null && (typeof input.body !== "string" || input.body.length > MAX_BODY)) {
    fail("body", `must be a string of at most ${MAX_BODY} characters`);
  }
  const expectedStatus = input.expected_status ?? "200-299";
  if (typeof expectedStatus !== "string" || parseStatusRanges(expectedStatus) === null) {
    fail("expected_status", 'must list codes or ranges of 100–599, e.g. "200-299,301"');
  }
  const keyword = input.keyword;
  if (keyword != null && (typeof keyword !== "string" || keyword === "" || keyword.length > 1000)) {
    fail("keyword", "must be a non-empty string of at most 1000 characters");
  }
  if (input.keyword_absent != null && typeof input.keyword_absent !== "boolean") {
    fail("keyword_absent", "must be a boolean");
  }
  const degraded = input.degraded_after_ms ?? null;
  if (degraded !== null && (!Number.isInteger(degraded) || (degraded as number) < 1)) {
    fail("degraded_after_ms", "must be a whole number of milliseconds (at least 1)");
  }
  checkJsonAssertion(input, fail);
  return {
    url,
    method,
    headers: headersOk ? (headers as Record<string, string>) : {},
    body: (input.body as string | undefined) ?? null,
    expected_status: expectedStatus as string,
    keyword: (input.keyword as string | undefined) ?? null,
    keyword_absent: input.keyword_absent === true,
    json_path: (input.json_path as string | undefined) ?? null,
    json_expected: input.json_path == null ? null : input.json_expected,
    degraded_after_ms: degraded as number | null,
  };
}

/** `json_path` + `json_expected` are one §8 filter on the answer's body, checked as one. */
function checkJsonAssertion(input: Fields, fail: Fail): void {
  if (input.json_path == null) return;
  if (typeof input.json_path !== "string" || input.json_path.trim() === "") {
    fail("json_path", "must be a path such as data.status or items[0].state");
    return;
  }
  if (input.json_expected === undefined) {
    fail("json_expected", "is required with json_path (a value or an operator object)");
    return;
  }
  const problems = validateFilters([jsonFilter(input.json_path, input.json_expected)]);
  for (const messages of Object.values(problems)) {
    for (const message of messages) fail("json_expected", message);
  }
}

/** The filter a JSON assertion stands for: the path under the answer's body. */
export function jsonFilter(path: string, expected: unknown): Record<string, unknown> {
  const trimmed = path.trim().replace(/^\$\.?/, "");
  return { [trimmed.startsWith("[") ? `body${trimmed}` : `body.${trimmed}`]: expected };
}

function tcpSettings(input: Fields, urlProblem: UrlProblem, fail: Fail): MonitorSettings {
  const url = typeof input.url === "string" ? input.url.trim() : "";
  const target = parseTcpTarget(url);
  if (!target) {
    fail("url", "must be tcp://host:port");
    return { url };
  }
  const problem = urlProblem(`http://${target.host}:${target.port}/`);
  if (problem) fail("url", problem);
  return { url };
}

/** `tcp://host:port` → its parts; null when it is not one. */
export function parseTcpTarget(url: string): { host: string; port: number } | null {
  const match = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[^:/[\]\s]+):(\d{1,5})\/?$/.exec(url);
  if (!match) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  return { host: (match[1] as string).replace(/^\[|\]$/g, ""), port };
}

function dnsSettings(input: Fields, fail: Fail): MonitorSettings {
  const hostname = typeof input.hostname === "string" ? input.hostname.trim() : "";
  if (!HOSTNAME.test(hostname)) fail("hostname", "must be a host name such as example.com");
  const recordType = (input.record_type ?? "A") as RecordType;
  if (!RECORD_TYPES.includes(recordType)) {
    fail("record_type", `must be one of ${RECORD_TYPES.join(", ")}`);
  }
  if (input.expected != null && typeof input.expected !== "string") {
    fail("expected", "must be a string");
  }
  return {
    hostname,
    record_type: recordType,
    expected: (input.expected as string | undefined) ?? null,
  };
}
