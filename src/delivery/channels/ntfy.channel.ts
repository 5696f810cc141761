import type { FieldErrors } from "../../shared/errors.ts";
import type { ChannelProvider, ChannelValidation } from "./channels.model.ts";
import {
  isRecord,
  JSON_HEADERS,
  readSetting,
  retryAfterHeaderMs,
  truncate,
} from "./chat.format.ts";

export interface NtfyConfig {
  server_url: string;
  topic: string;
  /** An access token (`tk_…`), or a `{{NAME}}` reference to one; null for open topics. */
  token: string | null;
}

const TOPIC = /^[-_A-Za-z0-9]{1,64}$/;
/** ntfy's message limit; longer ones become attachments, which an alert does not need. */
const MESSAGE_LIMIT = 4096;

/**
 * ntfy (self-hosted or ntfy.sh): one JSON publish to the server's root, with the topic in the
 * body; `click` opens Weir's page of the subject. A 429 carries `Retry-After`.
 */
export const ntfyChannel: ChannelProvider<NtfyConfig> = {
  type: "ntfy",
  validate(config, context): ChannelValidation<NtfyConfig> {
    const errors: FieldErrors = {};
    const record = isRecord(config) ? config : {};
    const serverUrl = readSetting(record.server_url, "server_url", errors, {
      isUrl: true,
      context,
    });
    const topic = record.topic;
    if (typeof topic !== "string" || !TOPIC.test(topic)) {
      errors.topic = ["is required: 1 to 64 letters, digits, - or _"];
    }
    let token: string | null = null;
    if (record.token !== undefined && record.token !== null) {
      token = readSetting(record.token, "token", errors);
    }
    if (serverUrl === null || Object.keys(errors).length > 0) return { ok: false, errors };
    return { ok: true, config: { server_url: serverUrl, topic: topic as string, token } };
  },
  format(event, config) {
    const headers = config.token
      ? [...JSON_HEADERS, ["authorization", `Bearer ${config.token}`] as const]
      : JSON_HEADERS;
    return {
      url: `${config.server_url.replace(/\/+$/, "")}/`,
      method: "POST",
      headers,
      body: JSON.stringify({
        topic: config.topic,
        title: truncate(event.title, 250),
        message: truncate(event.text, MESSAGE_LIMIT),
        tags: [event.kind],
        ...(event.link ? { click: event.link } : {}),
      }),
    };
  },
  retryAfterMs: (response) => retryAfterHeaderMs(response.headers),
};
