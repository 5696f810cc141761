// The send-time steps of an event's delivery that other rooms lend (decisions.md §8): `{{NAME}}`
// substitution with the organization's secrets, and the result of a transformation made into
// the event that is sent. Pure: the lookups and outcomes are handed in.
import { channelProvider } from "../delivery/channels/channels.registry.ts";
import type { DeliveryRequest, Prepared } from "../delivery/delivery.ports.ts";
import { LOOP_GUARD_HEADER } from "../delivery/forwards.model.ts";
import { type Concealment, MASK } from "../shared/conceal.ts";
import {
  secretConcealments,
  secretReferences,
  substituteSecrets,
} from "../shared/secret-template.ts";
import type { Destination } from "./destinations.model.ts";
import type { StoredEvent } from "./events.repo.ts";

type Lookup = (name: string) => string | undefined;

/** Whether a destination's url, headers, webhook_url, bot_token or chat_id say `{{name}}`. */
export function refersToSecret(destination: Destination, name: string): boolean {
  const texts = [destination.url, destination.webhookUrl, destination.botToken, destination.chatId];
  if (destination.headers) texts.push(...Object.values(destination.headers));
  return texts.some((text) => text !== null && secretReferences(text).includes(name));
}

/** The destination with every `{{NAME}}` filled in, or the failure naming the missing secret. */
export function withSecrets(
  destination: Destination,
  lookup: Lookup,
): { destination: Destination } | { fail: Extract<Prepared, { fail: unknown }>["fail"] } {
  let missing: string | null = null;
  const fill = (value: string | null): string | null => {
    if (value === null || missing !== null) return value;
    const result = substituteSecrets(value, lookup);
    if (result.ok) return result.text;
    missing = result.missing;
    return value;
  };
  const headers = destination.headers
    ? Object.fromEntries(Object.entries(destination.headers).map(([k, v]) => [k, fill(v) ?? v]))
    : null;
  const filled: Destination = {
    ...destination,
    url: fill(destination.url),
    webhookUrl: fill(destination.webhookUrl),
    botToken: fill(destination.botToken),
    chatId: fill(destination.chatId),
    headers,
  };
  if (missing !== null) {
    return {
      fail: {
        errorType: "authentication_error",
        errorCode: "missing_secret",
        message: `secret ${missing} is not defined`,
        // Retried on the normal schedule: defining the secret lets a later attempt succeed.
        retryable: true,
      },
    };
  }
  return { destination: filled };
}

/**
 * What the attempts of a destination must never show: the value of each secret its settings name
 * (shown as `{{NAME}}`) and a Telegram bot token, secret or not (shown as `***`: it sits in the
 * URL of every message).
 */
export function destinationConcealments(
  written: Destination,
  filled: Destination,
  lookup: Lookup,
): Concealment[] {
  const token: Concealment[] =
    filled.type === "telegram" && filled.botToken ? [[filled.botToken, MASK]] : [];
  const templates = [
    written.url,
    written.webhookUrl,
    written.botToken,
    written.chatId,
    ...Object.values(written.headers ?? {}),
  ];
  return [...token, ...secretConcealments(templates, lookup)];
}

/** Every secret a transformation saw (`context.env`), each shown as its `{{NAME}}`. */
export function environmentConcealments(environment: Record<string, string>): Concealment[] {
  return Object.entries(environment).map(([name, value]) => [value, `{{${name}}}`] as const);
}

/** The request a transformation sees for a stored event (the body as text; it parses JSON). */
export function scriptRequestOf(event: StoredEvent) {
  return {
    method: event.method,
    path: event.path || "/",
    query: Object.fromEntries(new URLSearchParams(event.queryString)),
    headers: event.headers,
    body: new TextDecoder().decode(event.body),
  };
}

/** The event as the transformation returned it: what the destination is sent. */
export function transformedEvent(
  event: StoredEvent,
  request: {
    method: string;
    path: string;
    query: Record<string, unknown>;
    headers: Record<string, string>;
    body: unknown;
  },
): StoredEvent {
  const body =
    typeof request.body === "string" ? request.body : JSON.stringify(request.body ?? null);
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  if (typeof request.body !== "string") headers["content-type"] ??= "application/json";
  // The loop guard is the event's, whatever the script did: dropping it would let a loop run on.
  delete headers[LOOP_GUARD_HEADER];
  const guard = event.rawHeaders.find(([name]) => name.toLowerCase() === LOOP_GUARD_HEADER);
  if (guard) headers[LOOP_GUARD_HEADER] = guard[1];
  const query = new URLSearchParams(
    Object.entries(request.query).map(([k, v]) => [k, String(v)] as [string, string]),
  ).toString();
  return {
    ...event,
    method: request.method,
    path: request.path,
    queryString: query,
    headers,
    rawHeaders: Object.entries(headers),
    body: new TextEncoder().encode(body),
  };
}

/**
 * A chat destination whose transformation returned an object body sends it exactly as the
 * platform takes it (e.g. Slack `{text, blocks}`); null when the default summary applies.
 */
export function exactChatPayload(
  destination: Destination,
  body: unknown,
  telegramApiBase: string | undefined,
): DeliveryRequest | null {
  if (destination.type === "http" || typeof body !== "object" || body === null) return null;
  const provider = channelProvider(destination.type, { telegramApiBase });
  const config = {
    webhook_url: destination.webhookUrl,
    bot_token: destination.botToken,
    chat_id: destination.chatId,
  };
  const request = provider?.formatPayload?.(body, config);
  if (!request) return null;
  return {
    url: request.url,
    method: request.method,
    headers: [...(request.headers ?? [])],
    body: typeof request.body === "string" ? request.body : "",
    signingSecrets: [],
  };
}
