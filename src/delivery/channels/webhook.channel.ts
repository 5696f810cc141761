import type { FieldErrors } from "../../shared/errors.ts";
import { secretReferences } from "../../shared/secret-template.ts";
import type { ChannelEvent, ChannelProvider, ChannelValidation } from "./channels.model.ts";

/** A plain webhook: a JSON POST to a URL the user chose, with optional extra headers. */
export interface WebhookConfig {
  url: string;
  headers: Record<string, string>;
}

const MAX_URL_LENGTH = 2048;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Names the sender owns (connection framing) or that would change where the request goes. */
const RESERVED = new Set(["host", "content-length", "transfer-encoding", "connection"]);

/** The `webhook` channel: every event as one JSON document, the same shape whatever its kind. */
export const webhookChannel: ChannelProvider<WebhookConfig> = {
  type: "webhook",

  validate(config, context): ChannelValidation<WebhookConfig> {
    const errors: FieldErrors = {};
    const record = isRecord(config) ? config : {};
    const url = readUrl(record.url, errors, context.checkTarget);
    const headers = readHeaders(record.headers, errors);
    if (Object.keys(errors).length > 0 || url === null) return { ok: false, errors };
    return { ok: true, config: { url, headers } };
  },

  format(event: ChannelEvent, config: WebhookConfig) {
    const body = JSON.stringify({
      type: event.kind,
      title: event.title,
      text: event.text,
      link: event.link ?? null,
      occurred_at: event.occurredAt,
      data: event.data,
    });
    return {
      url: config.url,
      method: "POST",
      headers: [["content-type", "application/json"], ...Object.entries(config.headers)],
      body,
    };
  },
};

function readUrl(
  raw: unknown,
  errors: FieldErrors,
  checkTarget: (url: string) => string | null,
): string | null {
  if (typeof raw !== "string" || raw.length > MAX_URL_LENGTH) {
    errors.url = [`must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters`];
    return null;
  }
  // A `{{NAME}}` reference is filled in at send time; the sender's address policy judges it then.
  if (secretReferences(raw).length > 0) return raw;
  if (!isHttpUrl(raw)) {
    errors.url = [`must be an absolute http(s) URL of at most ${MAX_URL_LENGTH} characters`];
    return null;
  }
  const problem = checkTarget(raw);
  if (problem) {
    errors.url = [problem];
    return null;
  }
  return raw;
}

function readHeaders(raw: unknown, errors: FieldErrors): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) {
    errors.headers = ["must be an object of header names to text values"];
    return {};
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!HEADER_NAME.test(name) || RESERVED.has(name.toLowerCase())) {
      errors[`headers.${name}`] = ["is not a header name that may be set"];
    } else if (typeof value !== "string" || /[\r\n\0]/.test(value)) {
      errors[`headers.${name}`] = ["must be text on one line"];
    } else {
      headers[name] = value;
    }
  }
  return headers;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
