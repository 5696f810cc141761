import type { FieldErrors } from "../../shared/errors.ts";
import type { ChannelEvent, ChannelProvider, ChannelValidation } from "./channels.model.ts";
import {
  isRecord,
  JSON_HEADERS,
  prettyBody,
  readSetting,
  retryAfterHeaderMs,
  truncate,
} from "./chat.format.ts";

export interface SlackConfig {
  webhook_url: string;
}

// Slack's Block Kit limits: header text 150, section text 3000; the fallback `text` is kept short.
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const TEXT_MAX = 3000;
const CODE_FENCE = "```";

/**
 * Slack reads `<…>` in mrkdwn as a control sequence (`<!channel>`, `<http://evil|click>`): text a
 * sender wrote gets `&`, `<` and `>` escaped as Slack documents, so it shows as typed.
 */
export const escapeSlack = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** `text` escaped within `max` characters: cut before escaping, so no entity is split. */
function escapedWithin(text: string, max: number): string {
  let cut = truncate(text, max);
  let escaped = escapeSlack(cut);
  while (escaped.length > max && cut.length > 0) {
    cut = truncate(text, Math.max(0, cut.length - (escaped.length - max)));
    escaped = escapeSlack(cut);
  }
  return escaped;
}

function blocksOf(event: ChannelEvent): unknown[] {
  const blocks: unknown[] = [
    // plain_text is never parsed for mentions or links: shown as is.
    { type: "header", text: { type: "plain_text", text: truncate(event.title, HEADER_MAX) } },
    {
      type: "section",
      text: { type: "mrkdwn", text: escapedWithin(event.text || " ", SECTION_MAX) },
    },
  ];
  const raw = prettyBody(event.data.body, SECTION_MAX - 2 * CODE_FENCE.length - 2);
  const body = raw && escapedWithin(raw, SECTION_MAX - 2 * CODE_FENCE.length - 2);
  if (body) {
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: `${CODE_FENCE}\n${body}\n${CODE_FENCE}` },
    });
  }
  const context = [
    `<!date^${Math.floor(Date.parse(event.occurredAt) / 1000)}^{date_short_pretty} {time}|${event.occurredAt}>`,
  ];
  if (event.link) context.push(`<${event.link}|Open in Weir>`);
  blocks.push({ type: "context", elements: context.map((text) => ({ type: "mrkdwn", text })) });
  return blocks;
}

const post = (config: SlackConfig, payload: unknown) => ({
  url: config.webhook_url,
  method: "POST",
  headers: JSON_HEADERS,
  body: JSON.stringify(payload),
});

/** Slack incoming webhooks: `{text, blocks}`; a 429 carries `Retry-After` in seconds. */
export const slackChannel: ChannelProvider<SlackConfig> = {
  type: "slack",
  validate(config, context): ChannelValidation<SlackConfig> {
    const errors: FieldErrors = {};
    const record = isRecord(config) ? config : {};
    const url = readSetting(record.webhook_url, "webhook_url", errors, { isUrl: true, context });
    if (url === null) return { ok: false, errors };
    return { ok: true, config: { webhook_url: url } };
  },
  format(event, config) {
    const text = escapedWithin(`${event.title}: ${event.text}`, TEXT_MAX);
    return post(config, { text, blocks: blocksOf(event) });
  },
  formatPayload: (payload, config) => post(config, payload),
  retryAfterMs: (response) =>
    response.status === 429 ? retryAfterHeaderMs(response.headers) : null,
};
