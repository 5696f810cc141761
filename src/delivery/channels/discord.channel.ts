import type { FieldErrors } from "../../shared/errors.ts";
import type { ChannelEvent, ChannelProvider, ChannelValidation } from "./channels.model.ts";
import {
  isRecord,
  JSON_HEADERS,
  jsonOf,
  prettyBody,
  readSetting,
  retryAfterHeaderMs,
  secondsToMs,
  truncate,
} from "./chat.format.ts";

export interface DiscordConfig {
  webhook_url: string;
}

/** Discord's documented limits for a webhook message and its embeds. */
export const DISCORD_LIMITS = {
  content: 2000,
  embedTitle: 256,
  embedDescription: 4096,
  embedTotal: 6000,
} as const;
const CODE_FENCE = "```";
const NO_MENTIONS = { parse: [] };

function embedOf(event: ChannelEvent) {
  const title = truncate(event.title, DISCORD_LIMITS.embedTitle);
  // The description holds the text and the body; with the title it stays under the embed total.
  const room = Math.min(DISCORD_LIMITS.embedDescription, DISCORD_LIMITS.embedTotal - title.length);
  const text = truncate(event.text, Math.min(500, room));
  const bodyRoom = room - text.length - 2 * CODE_FENCE.length - 8;
  const body = prettyBody(event.data.body, bodyRoom);
  const description = body ? `${text}\n${CODE_FENCE}json\n${body}\n${CODE_FENCE}` : text;
  return {
    title,
    description,
    ...(event.link ? { url: event.link } : {}),
    timestamp: event.occurredAt,
  };
}

const post = (config: DiscordConfig, payload: unknown) => ({
  url: config.webhook_url,
  method: "POST",
  headers: JSON_HEADERS,
  body: JSON.stringify(payload),
});

/** Discord webhooks: one embed per event; a 429 carries `retry_after` (seconds) in its JSON body. */
export const discordChannel: ChannelProvider<DiscordConfig> = {
  type: "discord",
  validate(config, context): ChannelValidation<DiscordConfig> {
    const errors: FieldErrors = {};
    const record = isRecord(config) ? config : {};
    const url = readSetting(record.webhook_url, "webhook_url", errors, { isUrl: true, context });
    if (url === null) return { ok: false, errors };
    return { ok: true, config: { webhook_url: url } };
  },
  // No mention in a message pings anyone (`@everyone`, `@here`, roles, users): the text may be a
  // sender's. A transformation's own payload may still allow some by saying so.
  format: (event, config) =>
    post(config, { embeds: [embedOf(event)], allowed_mentions: NO_MENTIONS }),
  formatPayload: (payload, config) =>
    post(
      config,
      isRecord(payload) && payload.allowed_mentions === undefined
        ? { ...payload, allowed_mentions: NO_MENTIONS }
        : payload,
    ),
  retryAfterMs(response) {
    if (response.status !== 429) return null;
    const body = jsonOf(response.body);
    const fromBody = isRecord(body) ? secondsToMs(body.retry_after) : null;
    return fromBody ?? retryAfterHeaderMs(response.headers);
  },
};
