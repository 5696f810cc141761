import type { HeaderPair } from "../../http/outbound/outbound.headers.ts";
import type { OutboundRequest } from "../../http/outbound/outbound.model.ts";
import type { FieldErrors } from "../../shared/errors.ts";

/** The chat and hook services an alert or a destination can speak to (decisions.md §8). */
export type ChannelType = "webhook" | "slack" | "discord" | "telegram" | "ntfy" | "gotify";

/**
 * Something worth telling a person or a system about, independent of where it goes: an issue
 * alert, a monitor going down or up, a test message. Each provider renders it in its own format.
 */
export interface ChannelEvent {
  /** What happened, e.g. `issue_created`, `monitor_down`, `test`. */
  kind: string;
  /** One line, fit for a notification title. */
  title: string;
  /** A few sentences of plain text. */
  text: string;
  /** Where to look in Weir, when there is a page for it. */
  link?: string;
  /** When it happened (ISO 8601). */
  occurredAt: string;
  /** The machine-readable facts (ids, counts, statuses) for receivers that are programs. */
  data: Record<string, unknown>;
}

/** A config as checked: the typed value, or the problems by field (for a 422). */
export type ChannelValidation<C> = { ok: true; config: C } | { ok: false; errors: FieldErrors };

/** What a provider may ask of its surroundings while validating (kept pure for tests). */
export interface ValidationContext {
  /** The outbound address policy's verdict on a URL: null when acceptable, else the reason. */
  checkTarget(url: string): string | null;
}

/**
 * One provider per channel type, one file each: `validate` checks the stored config when a rule
 * or destination is saved; `format` turns an event into the request the outbound sender sends
 * (placeholders such as `{{SECRET}}` are filled in before it is sent, not here).
 */
export interface ChannelProvider<C> {
  type: ChannelType;
  validate(config: unknown, context: ValidationContext): ChannelValidation<C>;
  format(event: ChannelEvent, config: C): OutboundRequest;
  /**
   * The request that sends `payload` exactly as the platform takes it (a transformation may build
   * the chat message itself); the provider adds only what addressing needs (e.g. Telegram's chat_id).
   */
  formatPayload?(payload: unknown, config: C): OutboundRequest;
  /** How long the platform asked to wait before the next try (its 429 hint), or null. */
  retryAfterMs?(response: ChannelResponse): number | null;
}

/** An answer as a provider reads it for a retry hint. */
export interface ChannelResponse {
  status: number | null;
  headers: readonly HeaderPair[];
  body: Uint8Array | string;
}
