// What the three chat providers share: limits-aware truncation, the pretty body of an event, the
// check of a URL that may be a `{{NAME}}` template, and reading a platform's retry hint.
import type { HeaderPair } from "../../http/outbound/outbound.headers.ts";
import type { FieldErrors } from "../../shared/errors.ts";
import { secretReferences } from "../../shared/secret-template.ts";
import type { ChannelEvent, ValidationContext } from "./channels.model.ts";

export type { ChannelResponse } from "./channels.model.ts";

const ELLIPSIS = "…";

/** Cuts `text` to at most `max` characters (code points kept whole), marking the cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - ELLIPSIS.length));
  // Never leave half of a surrogate pair at the end.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}${ELLIPSIS}`;
}

/** The body of a routed event, pretty-printed when it is JSON, cut to `max` characters. */
export function prettyBody(body: unknown, max: number): string {
  if (body === undefined || body === null || body === "") return "";
  let text: string;
  if (typeof body === "string") {
    try {
      text = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      text = body;
    }
  } else {
    text = JSON.stringify(body, null, 2) ?? String(body);
  }
  return truncate(text, max);
}

/** A routed event as a chat message: where it came from, its method and its body. */
export function routedEventMessage(event: {
  source: string;
  method: string;
  path?: string;
  body: unknown;
  occurredAt: string;
  link?: string;
}): ChannelEvent {
  const where = event.path && event.path !== "/" ? ` ${event.path}` : "";
  return {
    kind: "event",
    title: `${event.method.toUpperCase()}${where} from ${event.source}`,
    text: `New event on source ${event.source}.`,
    link: event.link,
    occurredAt: event.occurredAt,
    data: { source: event.source, method: event.method.toUpperCase(), body: event.body ?? null },
  };
}

/** What an issue alert says, whichever chat service shows it. */
export interface IssueAlertSummary {
  /** e.g. `issue.created` (the webhook document's `type`). */
  kind: string;
  /** What the rule saw, e.g. "New issue", "Issue reached 100 failures". */
  headline: string;
  /** A sample sent by the rule's test: said so in the title. */
  test: boolean;
  ruleName: string;
  bridgeName: string;
  sourceName: string;
  destinationName: string;
  destinationType: string;
  errorType: string;
  errorCode: string;
  errorMessage: string;
  occurrenceCount: number;
  firstOccurrenceAt: string;
  lastOccurrenceAt: string;
  status: string;
  occurredAt: string;
  link?: string;
  /** The machine-readable alert (the webhook channel's `data`). */
  data: Record<string, unknown>;
}

/** An issue alert as a chat message: which destination fails, how, since when, and the rule. */
export function issueAlertMessage(alert: IssueAlertSummary): ChannelEvent {
  const failures = alert.occurrenceCount === 1 ? "1 failure" : `${alert.occurrenceCount} failures`;
  const code = alert.errorCode ? ` ${alert.errorCode}` : "";
  return {
    kind: alert.kind,
    title: `${alert.test ? "[test] " : ""}${alert.headline}: ${alert.destinationName} (${alert.errorType}${code})`,
    text: [
      `Bridge ${alert.bridgeName} (source ${alert.sourceName}) to ${alert.destinationName} (${alert.destinationType}) is failing: ${alert.errorMessage}`,
      `${failures} since ${alert.firstOccurrenceAt}, the last at ${alert.lastOccurrenceAt}; the issue is ${alert.status}.`,
      `Alert rule: ${alert.ruleName}.`,
    ].join("\n"),
    link: alert.link,
    occurredAt: alert.occurredAt,
    data: alert.data,
  };
}

/** A required text setting that may be (or hold) a `{{NAME}}` reference to a secret. */
export function readSetting(
  raw: unknown,
  field: string,
  errors: FieldErrors,
  rule?: { isUrl: true; context: ValidationContext },
): string | null {
  if (typeof raw !== "string" || raw.trim() === "" || raw.length > 2048) {
    errors[field] = ["is required (text of at most 2048 characters, may be {{SECRET_NAME}})"];
    return null;
  }
  // A template is filled in at send time; the sender's address policy judges the result then.
  if (!rule || secretReferences(raw).length > 0) return raw;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    errors[field] = ["must be an absolute http(s) URL or a {{SECRET_NAME}} reference"];
    return null;
  }
  const problem = rule.context.checkTarget(raw);
  if (problem) {
    errors[field] = [problem];
    return null;
  }
  return raw;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `Retry-After` in seconds or as an HTTP date, in milliseconds (null when absent or bad). */
export function retryAfterHeaderMs(
  headers: readonly HeaderPair[],
  nowMs = Date.now(),
): number | null {
  const value = headers.find(([name]) => name.toLowerCase() === "retry-after")?.[1]?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

/** The answer's body as JSON, or null. */
export function jsonOf(body: Uint8Array | string): unknown {
  try {
    return JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body));
  } catch {
    return null;
  }
}

/** A seconds value (possibly fractional) as whole milliseconds, or null. */
export function secondsToMs(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? Math.ceil(value * 1000)
    : null;
}

export const JSON_HEADERS: HeaderPair[] = [["content-type", "application/json"]];
