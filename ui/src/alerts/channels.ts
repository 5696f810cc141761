import type { AlertChannelType, ConditionType } from "./alerts.api.ts";

/** Each channel's fields: a server channel type without an entry fails `tsc -p ui`. */
export const CHANNELS: Record<
  AlertChannelType,
  { label: string; fields: { name: string; label: string; multiline?: boolean }[] }
> = {
  slack: { label: "Slack", fields: [{ name: "webhook_url", label: "Slack webhook URL" }] },
  discord: { label: "Discord", fields: [{ name: "webhook_url", label: "Discord webhook URL" }] },
  telegram: {
    label: "Telegram",
    fields: [
      { name: "bot_token", label: "Bot token" },
      { name: "chat_id", label: "Chat id" },
    ],
  },
  webhook: {
    label: "Webhook",
    fields: [
      { name: "url", label: "Webhook URL" },
      { name: "headers", label: "Headers", multiline: true },
    ],
  },
  ntfy: {
    label: "ntfy",
    fields: [
      { name: "server_url", label: "ntfy server URL" },
      { name: "topic", label: "Topic" },
      { name: "token", label: "Access token (optional)" },
    ],
  },
  gotify: {
    label: "Gotify",
    fields: [
      { name: "server_url", label: "Gotify server URL" },
      { name: "token", label: "Application token" },
    ],
  },
  // Sent by the server's mail settings (WEIR_SMTP_URL): without them the server answers 422.
  email: {
    label: "Email",
    fields: [{ name: "to", label: "Email addresses (one per line)", multiline: true }],
  },
};

/** One address per line as the channel's `to` list, and back. */
export const addressList = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
export const addressLines = (to: unknown) => (Array.isArray(to) ? to.join("\n") : "");

export const CONDITIONS: Record<ConditionType, { label: string; value?: string }> = {
  issue_created: { label: "An issue is created" },
  occurrence_threshold: { label: "An issue reaches a number of failures", value: "Failures" },
  open_for_days: { label: "An issue stays open for days", value: "Days" },
  high_priority_destination: { label: "A high-priority destination fails" },
  monitor_down: { label: "An uptime monitor goes down" },
  monitor_up: { label: "An uptime monitor is back up" },
  tls_expiring: { label: "A monitored certificate expires within days", value: "Days" },
  api_key_created: { label: "An API key is created" },
  api_key_revoked: { label: "An API key is revoked" },
  api_key_expiring: { label: "An API key expires within days", value: "Days" },
  api_key_denied_ip: { label: "An API key is used from an address it does not allow" },
};

/** `Name: value` lines as the headers object, and back. */
export function parseHeaderLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

export const headerLines = (headers: unknown) =>
  Object.entries((headers ?? {}) as Record<string, string>)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
