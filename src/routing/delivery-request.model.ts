import type { DeliveryRequest, Prepared } from "../delivery/delivery.ports.ts";
import type { Destination } from "./destinations.model.ts";
import type { StoredEvent } from "./events.repo.ts";

/** Chat messages carry the start of the body; the services refuse long texts. */
const CHAT_TEXT_MAX = 3500;
const TELEGRAM_API_BASE = "https://api.telegram.org";
const decoder = new TextDecoder();

/** Headers of the original request that describe its body, kept on an http delivery. */
const KEPT_HEADERS = ["content-type", "content-encoding"];

function chatText(event: StoredEvent): string {
  const body = decoder.decode(event.body);
  const text = `${event.method} ${event.path || "/"}\n${body}`;
  return text.length > CHAT_TEXT_MAX ? `${text.slice(0, CHAT_TEXT_MAX)}…` : text;
}

const json = (url: string, payload: unknown): DeliveryRequest => ({
  url,
  method: "POST",
  headers: [["content-type", "application/json"]],
  body: JSON.stringify(payload),
  signingSecrets: [],
});

/**
 * The request one delivery of an event sends, for a destination whose `{{NAME}}` templates were
 * already filled in (event-prepare.model.ts) and an event a transformation may have changed.
 */
export function eventDeliveryRequest(
  event: StoredEvent,
  destination: Destination,
  signingSecrets: string[],
): Prepared {
  switch (destination.type) {
    case "http": {
      const headers: [string, string][] = [];
      for (const name of KEPT_HEADERS) {
        const value = event.headers[name];
        if (value !== undefined) headers.push([name, value]);
      }
      for (const [name, value] of Object.entries(destination.headers ?? {})) {
        headers.push([name.toLowerCase(), value]);
      }
      const method = destination.method ?? "POST";
      return {
        send: {
          url: destination.url as string,
          method,
          headers,
          body: method === "GET" ? "" : event.body,
          signingSecrets,
        },
      };
    }
    case "slack":
      return { send: json(destination.webhookUrl as string, { text: chatText(event) }) };
    case "discord":
      return { send: json(destination.webhookUrl as string, { content: chatText(event) }) };
    case "telegram":
      return {
        send: json(`${TELEGRAM_API_BASE}/bot${destination.botToken}/sendMessage`, {
          chat_id: destination.chatId,
          text: chatText(event),
        }),
      };
  }
}
