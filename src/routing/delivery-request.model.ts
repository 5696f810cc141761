import { channelProvider } from "../delivery/channels/channels.registry.ts";
import { routedEventMessage } from "../delivery/channels/chat.format.ts";
import type { DeliveryRequest, Prepared } from "../delivery/delivery.ports.ts";
import type { Destination } from "./destinations.model.ts";
import type { StoredEvent } from "./events.repo.ts";

const decoder = new TextDecoder();

/** Headers of the original request that describe its body, kept on an http delivery. */
const KEPT_HEADERS = ["content-type", "content-encoding"];

/**
 * The request one delivery of an event sends, for a destination whose `{{NAME}}` templates were
 * already filled in (event-prepare.model.ts) and an event a transformation may have changed.
 */
export function eventDeliveryRequest(
  event: StoredEvent,
  destination: Destination,
  signingSecrets: string[],
  chat: ChatContext = {},
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
    case "discord":
    case "telegram":
      return { send: chatRequest(event, destination, chat) };
  }
}

/** What a chat message names besides the event itself. */
export interface ChatContext {
  sourceName?: string;
  /** `WEIR_TELEGRAM_API_BASE` (tests point it at a local server). */
  telegramApiBase?: string;
}

/**
 * A chat destination gets its platform's own summary of the event (source, method, path and the
 * pretty-printed body, within the platform's limits), built by the channel provider.
 */
function chatRequest(
  event: StoredEvent,
  destination: Destination,
  chat: ChatContext,
): DeliveryRequest {
  const provider = channelProvider(destination.type, { telegramApiBase: chat.telegramApiBase });
  if (!provider) throw new Error(`no channel provider for ${destination.type}`);
  const message = routedEventMessage({
    source: chat.sourceName ?? event.sourceId,
    method: event.method,
    path: event.path,
    body: decoder.decode(event.body),
    occurredAt: event.createdAt,
  });
  const request = provider.format(message, {
    webhook_url: destination.webhookUrl,
    bot_token: destination.botToken,
    chat_id: destination.chatId,
  });
  return {
    url: request.url,
    method: request.method,
    headers: [...(request.headers ?? [])],
    body: typeof request.body === "string" ? request.body : (request.body ?? ""),
    signingSecrets: [],
  };
}
