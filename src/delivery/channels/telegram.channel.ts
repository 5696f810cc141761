import type { FieldErrors } from "../../shared/errors.ts";
import type { ChannelEvent, ChannelProvider, ChannelValidation } from "./channels.model.ts";
import {
  isRecord,
  JSON_HEADERS,
  jsonOf,
  prettyBody,
  readSetting,
  secondsToMs,
  truncate,
} from "./chat.format.ts";

export interface TelegramConfig {
  bot_token: string;
  chat_id: string;
}

/** Telegram's limit on a message's text, counted after entities are parsed; we count before. */
export const TELEGRAM_TEXT_MAX = 4096;
export const DEFAULT_TELEGRAM_API_BASE = "https://api.telegram.org";

/** The characters HTML parse mode needs escaped (`"` too: the link sits in an attribute). */
export const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * The message in HTML parse mode, escaped, at most 4096 characters. Plain text is cut before it
 * is escaped, so a cut never splits an entity or a tag.
 */
export function telegramText(event: ChannelEvent): string {
  const head = `<b>${escapeHtml(truncate(event.title, 256))}</b>\n${escapeHtml(truncate(event.text, 1000))}`;
  const link = event.link ? `\n<a href="${escapeHtml(event.link)}">Open in Weir</a>` : "";
  let budget = TELEGRAM_TEXT_MAX - head.length - link.length - "\n<pre></pre>".length;
  for (;;) {
    const body = prettyBody(event.data.body, Math.max(0, budget));
    const pre = body ? `\n<pre>${escapeHtml(body)}</pre>` : "";
    const text = `${head}${pre}${link}`;
    if (text.length <= TELEGRAM_TEXT_MAX || budget <= 0) return truncate(text, TELEGRAM_TEXT_MAX);
    budget -= text.length - TELEGRAM_TEXT_MAX;
  }
}

/** Telegram's Bot API `sendMessage`, at a configurable base (decisions.md §8). */
export function createTelegramChannel(
  apiBase = DEFAULT_TELEGRAM_API_BASE,
): ChannelProvider<TelegramConfig> {
  const base = apiBase.replace(/\/+$/, "");
  const post = (config: TelegramConfig, payload: Record<string, unknown>) => ({
    url: `${base}/bot${config.bot_token}/sendMessage`,
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ chat_id: config.chat_id, ...payload }),
  });
  return {
    type: "telegram",
    validate(config): ChannelValidation<TelegramConfig> {
      const errors: FieldErrors = {};
      const record = isRecord(config) ? config : {};
      const token = readSetting(record.bot_token, "bot_token", errors);
      if (token !== null && !/^[A-Za-z0-9:_\-{} ]+$/.test(token)) {
        errors.bot_token = ["must be a bot token (digits:letters) or a {{SECRET_NAME}} reference"];
      }
      const chatId = readSetting(
        typeof record.chat_id === "number" ? String(record.chat_id) : record.chat_id,
        "chat_id",
        errors,
      );
      if (Object.keys(errors).length > 0 || token === null || chatId === null) {
        return { ok: false, errors };
      }
      return { ok: true, config: { bot_token: token, chat_id: chatId } };
    },
    format: (event, config) =>
      post(config, {
        text: telegramText(event),
        parse_mode: "HTML",
        disable_web_page_preview: true,
      }),
    formatPayload: (payload, config) =>
      post(
        config,
        isRecord(payload) ? payload : { text: truncate(String(payload), TELEGRAM_TEXT_MAX) },
      ),
    retryAfterMs(response) {
      if (response.status !== 429) return null;
      const body = jsonOf(response.body);
      const parameters = isRecord(body) && isRecord(body.parameters) ? body.parameters : null;
      return parameters ? secondsToMs(parameters.retry_after) : null;
    },
  };
}

export const telegramChannel = createTelegramChannel();
