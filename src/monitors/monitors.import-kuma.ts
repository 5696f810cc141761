import { type ImportEntry, scalarOf } from "./monitors.import.model.ts";
import { RECORD_TYPES } from "./monitors.model.ts";

/**
 * Uptime Kuma's `monitor` rows turned into create bodies (`weir monitors import kuma.db`). Each
 * row becomes one monitor or one reason it was skipped; what a kept row loses is noted, so an
 * operator can see the whole difference before anything is written.
 */

/** One row of Kuma's `monitor` table, as bun:sqlite returns it. */
export type KumaRow = Record<string, unknown>;
/** Kuma's docker hosts by id: the daemon address (`/var/run/docker.sock`, `tcp://h:2375`). */
export type KumaDockerHosts = Map<number, string>;

/** A push token Weir keeps as it is: long enough not to be guessed, and safe in a URL path. */
export const ACCEPTABLE_PUSH_TOKEN = /^[A-Za-z0-9_-]{16,128}$/;
/** A JSONata expression that is also a plain path (`data.items[0].state`), which Weir can check. */
const PLAIN_PATH = /^(\$\.)?[A-Za-z_]\w*(\.[A-Za-z_]\w*|\[\d+\])*$/;

const text = (value: unknown): string =>
  typeof value === "string" ? value.trim() : value == null ? "" : String(value);
const truthy = (value: unknown) => value === 1 || value === true || value === "1";
const clamp = (n: number, low: number, high: number) => Math.min(high, Math.max(low, n));

/** Maps every row; Kuma's group monitors lend their name as the `group` of their members. */
export function kumaEntries(rows: KumaRow[], dockerHosts: KumaDockerHosts): ImportEntry[] {
  const groups = new Map(
    rows.filter((row) => row.type === "group").map((row) => [Number(row.id), text(row.name)]),
  );
  return rows.map((row) => {
    const name = text(row.name) || `#${text(row.id)}`;
    if (row.type === "group") {
      return { name, skipped: "a group, not a check: its name becomes its members' group" };
    }
    if (truthy(row.upside_down)) {
      return { name, skipped: "upside-down mode (up when the check fails) has no counterpart" };
    }
    const notes: string[] = [];
    const typed = typedFields(row, dockerHosts, notes);
    if ("skipped" in typed) return { name, skipped: typed.skipped };
    const body: Record<string, unknown> = { name, ...typed.body, ...commonFields(row, notes) };
    const group = groups.get(Number(row.parent));
    if (group) body.group = group;
    return typed.pushToken
      ? { name, body, notes, pushToken: typed.pushToken }
      : { name, body, notes };
  });
}

type Typed = { body: Record<string, unknown>; pushToken?: string } | { skipped: string };

function typedFields(row: KumaRow, dockerHosts: KumaDockerHosts, notes: string[]): Typed {
  switch (row.type) {
    case "http":
    case "keyword":
    case "json-query":
      return httpFields(row, notes);
    case "port":
      return tcpFields(row);
    case "dns":
      return dnsFields(row, notes);
    case "push":
      return pushFields(row, notes);
    case "docker":
      return dockerFields(row, dockerHosts);
    case "ping":
      return text(row.hostname)
        ? { body: { type: "ping", hostname: text(row.hostname) } }
        : { skipped: "a ping monitor without a hostname" };
    default:
      return { skipped: `type ${text(row.type) || "(none)"} has no counterpart in Weir` };
  }
}

/** Interval, retries, timeout and the paused flag, within Weir's bounds (noted when moved). */
function commonFields(row: KumaRow, notes: string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = { paused: !truthy(row.active) };
  const interval = Math.round(Number(row.interval) || 60);
  fields.interval_seconds = clamp(interval, 10, 86_400);
  if (fields.interval_seconds !== interval) {
    notes.push(`interval ${interval}s became ${fields.interval_seconds}s`);
  }
  const retries = Math.round(Number(row.maxretries) || 0);
  fields.retries = clamp(retries, 0, 20);
  if (fields.retries !== retries) notes.push(`retries ${retries} became ${fields.retries}`);
  const timeout = Number(row.timeout);
  // Kuma stores 0 or nothing when the timeout is its default (a share of the interval).
  if (timeout > 0) fields.timeout_seconds = clamp(Math.ceil(timeout), 1, 300);
  return fields;
}

function httpFields(row: KumaRow, notes: string[]): Typed {
  const url = text(row.url);
  if (!/^https?:\/\//i.test(url)) return { skipped: `url ${url || "(none)"} is not http(s)://` };
  const body: Record<string, unknown> = { type: "http", url };
  if (text(row.method)) body.method = text(row.method).toUpperCase();
  if (text(row.body)) body.body = String(row.body);
  const headers = headersOf(row.headers);
  if (headers === null) notes.push("headers left out: not a JSON object of values");
  else if (Object.keys(headers).length > 0) body.headers = headers;
  const statuses = statusRangesOf(row.accepted_statuscodes_json);
  if (statuses) body.expected_status = statuses;
  if (truthy(row.ignore_tls)) notes.push("ignore_tls left out: Weir verifies certificates");
  if (text(row.basic_auth_user)) {
    notes.push(
      "basic auth left out: store the credentials as a secret and add an authorization header that names it ({{NAME}})",
    );
  }
  if (row.type === "keyword") {
    if (!text(row.keyword)) return { skipped: "a keyword monitor without a keyword" };
    body.keyword = String(row.keyword);
    body.keyword_absent = truthy(row.invert_keyword);
  }
  if (row.type === "json-query") {
    const path = text(row.json_path);
    if (!PLAIN_PATH.test(path)) {
      return { skipped: `json query ${path || "(none)"} is not a plain path Weir can check` };
    }
    const expected = jsonExpected(row);
    if (expected === undefined) {
      return { skipped: `json comparison ${text(row.json_path_operator)} has no counterpart` };
    }
    body.json_path = path;
    body.json_expected = expected;
  }
  return { body };
}

/** Later Kuma versions compare with `json_path_operator`; older ones only test equality. */
const JSON_OPERATORS: Record<string, string> = {
  "!=": "$neq",
  "<": "$lt",
  "<=": "$lte",
  ">": "$gt",
  ">=": "$gte",
};

/** Kuma's expected value as a filter value or operator object; undefined when it has none. */
function jsonExpected(row: KumaRow): unknown {
  const value = scalarOf(text(row.expected_value));
  const operator = text(row.json_path_operator) || "==";
  if (operator === "==") return value;
  if (operator === "contains") return { $contains: text(row.expected_value) };
  const mapped = JSON_OPERATORS[operator];
  return mapped ? { [mapped]: value } : undefined;
}

/** Kuma keeps headers as JSON text; null when it is not an object of texts. */
function headersOf(value: unknown): Record<string, string> | null {
  if (!text(value)) return {};
  try {
    const parsed = JSON.parse(String(value));
    const ok =
      typeof parsed === "object" &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((v) => ["string", "number", "boolean"].includes(typeof v));
    if (!ok) return null;
    // Kuma sends `{"x-count": 1}` as the text "1".
    return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  } catch {
    return null;
  }
}

/** `["200-299","301"]` → `200-299,301`; undefined leaves Weir's default. */
function statusRangesOf(value: unknown): string | undefined {
  try {
    const parsed = JSON.parse(text(value) || "[]");
    if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
    return parsed.map((range) => String(range).trim()).join(",");
  } catch {
    return undefined;
  }
}

function tcpFields(row: KumaRow): Typed {
  const host = text(row.hostname);
  const port = Number(row.port);
  if (!host || !Number.isInteger(port)) return { skipped: "a port monitor without host and port" };
  return { body: { type: "tcp", url: `tcp://${host.includes(":") ? `[${host}]` : host}:${port}` } };
}

function dnsFields(row: KumaRow, notes: string[]): Typed {
  const recordType = text(row.dns_resolve_type) || "A";
  if (!(RECORD_TYPES as readonly string[]).includes(recordType)) {
    return { skipped: `dns record type ${recordType} is not one Weir checks` };
  }
  const server = text(row.dns_resolve_server);
  if (server) {
    notes.push(`resolver ${server} left out: dns monitors ask the server's (WEIR_DNS_RESOLVER)`);
  }
  return { body: { type: "dns", hostname: text(row.hostname), record_type: recordType } };
}

function pushFields(row: KumaRow, notes: string[]): Typed {
  const token = text(row.push_token);
  if (ACCEPTABLE_PUSH_TOKEN.test(token)) return { body: { type: "push" }, pushToken: token };
  notes.push("new push URL: the old token is too short or has characters a URL path cannot keep");
  return { body: { type: "push" } };
}

function dockerFields(row: KumaRow, dockerHosts: KumaDockerHosts): Typed {
  const container = text(row.docker_container);
  const daemon = dockerHosts.get(Number(row.docker_host));
  if (!container) return { skipped: "a docker monitor without a container" };
  if (!daemon) return { skipped: `docker host #${text(row.docker_host)} is not in the file` };
  const dockerHost = daemon.startsWith("/")
    ? `unix://${daemon}`
    : daemon.replace(/^https?:\/\//, "tcp://").replace(/\/$/, "");
  return { body: { type: "docker", container, docker_host: dockerHost } };
}
