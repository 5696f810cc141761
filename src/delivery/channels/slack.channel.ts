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

function blocksOf(event: ChannelEvent): unknown[] {
  const blocks: unknown[] = [
    { type: "header", text: { type: "plain_text", text: truncate(event.title, HEADER_MAX) } },
    { type: "section", text: { type: "mrkdwn", text: truncate(event.text || " ", SECTION_MAX) } },
  ];
  const body = prettyBody(event.data.body, SECTION_MAX - 2 * CODE_FENCE.length - 2);
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
    const text = truncate(`${event.title}: ${event.text}`, TEXT_MAX);
    return post(config, { text, blocks: blocksOf(event) });
  },
  formatPayload: (payload, config) => post(config, payload),
  retryAfterMs: (response) =>
    response.status === 429 ? retryAfterHeaderMs(response.headers) : null,
};
