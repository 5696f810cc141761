import { channelProvider } from "../delivery/channels/channels.registry.ts";
import { routedEventMessage } from "../delivery/channels/chat.format.ts";
import type { DeliveryRequest, Prepared } from "../delivery/delivery.ports.ts";
import { LOOP_GUARD_HEADER } from "../delivery/forwards.model.ts";
import { endToEndHeaders, type HeaderPair } from "../http/outbound/outbound.headers.ts";
import type { Destination } from "./destinations.model.ts";
import type { StoredEvent } from "./events.repo.ts";

const decoder = new TextDecoder();

/**
 * Names the sender owns on a delivery: those it writes itself on a signed delivery (Standard
 * Webhooks) or a forward (the loop guard), whose copy from the original request or a
 * transformation would be sent twice or lie; and those about how Weir exchanges with the
 * destination (the answer comes back to Weir, which reads it as sent: no compression, and the
 * request goes out whole, with no `100 Continue` to wait for).
 */
const OWNED_HEADERS: ReadonlySet<string> = new Set([
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  LOOP_GUARD_HEADER,
  "accept-encoding",
  "expect",
]);

/**
 * Deliveries an event may be carried through, Weir to Weir, before an ingest refuses it. A
 * destination pointing back at its own source (or two sources at each other) would otherwise
 * make new events forever, doubling with every second destination, on an instance others share.
 */
export const MAX_ROUTING_HOPS = 5;

/**
 * How many Weir deliveries brought this request: the loop guard's count (a capture forward
 * writes `1`; a value that is not a count still counts as one hop).
 */
export function routingHops(guard: string | null | undefined): number {
  if (guard === null || guard === undefined) return 0;
  const hops = Number.parseInt(guard, 10);
  return Number.isSafeInteger(hops) && hops > 0 ? hops : 1;
}

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
      const method = destination.method ?? "POST";
      const base = destination.url as string;
      return {
        send: {
          url: destination.pathForwarding
            ? forwardedUrl(base, event.path, event.queryString)
            : base,
          method,
          headers: httpHeaders(event, destination),
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

/**
 * decisions.md §15: the event's headers (the original request's, or as a transformation left
 * them: it may set and delete) minus hop-by-hop ones, Host, Content-Length and the names the
 * sender owns; then the destination's `headers`, which replace any of the same name; then the
 * loop guard counting this hop. The signature headers come last, added by the delivery worker.
 */
export function httpHeaders(event: StoredEvent, destination: Destination): HeaderPair[] {
  const own = Object.entries(destination.headers ?? {})
    .map(([name, value]) => [name.toLowerCase(), value] as const)
    .filter(([name]) => name !== LOOP_GUARD_HEADER);
  const replaced = new Set(own.map(([name]) => name));
  const forwarded = endToEndHeaders(event.rawHeaders).filter(([name]) => {
    const lower = name.toLowerCase();
    return !OWNED_HEADERS.has(lower) && !replaced.has(lower);
  });
  const guard = event.rawHeaders.find(([name]) => name.toLowerCase() === LOOP_GUARD_HEADER);
  return [...forwarded, ...own, [LOOP_GUARD_HEADER, String(routingHops(guard?.[1]) + 1)]];
}

/**
 * `base` with the event's sub-path appended and its query added to the one `base` has (what
 * `/in/{slug}/orders/created?x=1` forwards). Works on the text, so a `{{NAME}}` in `base` may be
 * joined before or after it is filled in.
 */
export function forwardedUrl(base: string, path: string, queryString: string): string {
  const hashAt = base.indexOf("#");
  const target = hashAt < 0 ? base : base.slice(0, hashAt);
  const queryAt = target.indexOf("?");
  const prefix = queryAt < 0 ? target : target.slice(0, queryAt);
  const baseQuery = queryAt < 0 ? "" : target.slice(queryAt + 1);
  const sub = safeSubPath(path);
  const joined = sub === "" ? prefix : prefix.replace(/\/+$/, "") + sub;
  const query = [baseQuery, queryString].filter((part) => part !== "").join("&");
  return query === "" ? joined : `${joined}?${query}`;
}

/**
 * A sub-path that stays under the destination's own path: `.` and `..` segments (also as `%2e`,
 * or followed by `;` path parameters) are dropped, so `/in/shop/%2e%2e/admin` cannot climb out of `https://internal/hooks`; empty
 * segments collapse; `?`, `#` and `\` are escaped so a transformation's path stays a path. Control
 * characters and spaces are escaped before the dot test: URL parsing deletes tabs and newlines, so
 * a `.\t.` a transformation copied from a sender's body would otherwise turn into `..` after it.
 */
function safeSubPath(path: string): string {
  const segments = path
    .split("/")
    .map((segment) =>
      segment.replace(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what URL parsing deletes.
        /[\x00-\x20\x7f?#\\]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
      ),
    )
    .filter((segment) => {
      // Path parameters cut off first: Tomcat and Spring read `..;x` as `..`.
      const plain = segment.replace(/%2e/gi, ".").replace(/(;|%3b).*$/i, "");
      return segment !== "" && plain !== "." && plain !== "..";
    });
  if (segments.length === 0) return "";
  return `/${segments.join("/")}${path.endsWith("/") ? "/" : ""}`;
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
