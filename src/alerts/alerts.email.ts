// The email alert channel (decisions.md §15): `{type: "email", to: [addresses]}`, sent through the
// server's own mail server (WEIR_SMTP_URL). Pure: validation and the plain-text message.
import type { ChannelEvent } from "../delivery/channels/channels.model.ts";
import type { FieldErrors } from "../shared/errors.ts";

export const MAX_RECIPIENTS = 10;
const ADDRESS_MAX = 254;
// Deliberately plain: a local part without spaces or brackets, a dotted domain. Display names and
// quoted local parts are refused rather than parsed, so nothing else can reach the SMTP envelope.
const ADDRESS =
  /^[^\s@<>()[\],;:"\\]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

export interface EmailSettings {
  to: string[];
}

export const SMTP_NOT_CONFIGURED =
  "email needs the server's mail settings: the operator sets WEIR_SMTP_URL and WEIR_SMTP_FROM";

export const isEmailAddress = (value: unknown): value is string =>
  typeof value === "string" && value.length <= ADDRESS_MAX && ADDRESS.test(value);

/** An email channel's settings, or the problems keyed by field (`to`, or `type` without SMTP). */
export function validateEmailChannel(
  record: Record<string, unknown>,
  smtpConfigured: boolean,
): { ok: true; config: EmailSettings } | { ok: false; errors: FieldErrors } {
  if (!smtpConfigured) return { ok: false, errors: { type: [SMTP_NOT_CONFIGURED] } };
  const to = record.to;
  if (!Array.isArray(to) || to.length === 0 || to.length > MAX_RECIPIENTS) {
    return {
      ok: false,
      errors: { to: [`is required: a list of 1 to ${MAX_RECIPIENTS} email addresses`] },
    };
  }
  const bad = to.filter((address) => !isEmailAddress(address));
  if (bad.length > 0) {
    const shown = bad.map((address) => JSON.stringify(String(address).slice(0, 100)));
    return { ok: false, errors: { to: [`not an email address: ${shown.join(", ")}`] } };
  }
  return { ok: true, config: { to: [...new Set(to as string[])] } };
}

export interface EmailMessage {
  to: string[];
  subject: string;
  text: string;
  /** Extra header lines (a status page's `List-Unsubscribe`); never built from user input alone. */
  headers?: Record<string, string>;
}

const oneLine = (text: string) => text.replace(/[\r\n]+/g, " ").trim();

/** The subject a person scans in an inbox: the monitor and its new state, else the alert's title. */
function subjectOf(event: ChannelEvent): string {
  const monitor = event.data.monitor as { name?: unknown } | undefined;
  const test = event.data.test === true ? "[test] " : "";
  const name = typeof monitor?.name === "string" ? monitor.name : null;
  if (name !== null && event.kind === "monitor.down") return `[Weir] ${test}${name} is DOWN`;
  if (name !== null && event.kind === "monitor.up") return `[Weir] ${test}${name} is UP`;
  return `[Weir] ${event.title}`;
}

/** An alert as a plain-text mail: the subject line, the alert's text, then the link to it. */
export function emailMessage(event: ChannelEvent, settings: EmailSettings): EmailMessage {
  const lines = [event.text];
  if (event.link) lines.push("", event.link);
  lines.push("", `-- \nSent by Weir at ${event.occurredAt}.`);
  return { to: settings.to, subject: oneLine(subjectOf(event)), text: `${lines.join("\n")}\n` };
}
