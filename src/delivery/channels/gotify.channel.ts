import type { FieldErrors } from "../../shared/errors.ts";
import type { ChannelProvider, ChannelValidation } from "./channels.model.ts";
import { isRecord, JSON_HEADERS, readSetting, truncate } from "./chat.format.ts";

export interface GotifyConfig {
  server_url: string;
  /** The application token, or a `{{NAME}}` reference to it. */
  token: string;
}

/** Gotify: `POST {server_url}/message` with the application token in `X-Gotify-Key`. */
export const gotifyChannel: ChannelProvider<GotifyConfig> = {
  type: "gotify",
  validate(config, context): ChannelValidation<GotifyConfig> {
    const errors: FieldErrors = {};
    const record = isRecord(config) ? config : {};
    const serverUrl = readSetting(record.server_url, "server_url", errors, {
      isUrl: true,
      context,
    });
    const token = readSetting(record.token, "token", errors);
    if (serverUrl === null || token === null) return { ok: false, errors };
    return { ok: true, config: { server_url: serverUrl, token } };
  },
  format(event, config) {
    return {
      url: `${config.server_url.replace(/\/+$/, "")}/message`,
      method: "POST",
      headers: [...JSON_HEADERS, ["x-gotify-key", config.token]],
      body: JSON.stringify({
        title: truncate(event.title, 250),
        message: truncate(event.text, 4096),
        // High enough to notify on Android clients (they stay silent below 4 by default).
        priority: 5,
        ...(event.link
          ? { extras: { "client::notification": { click: { url: event.link } } } }
          : {}),
      }),
    };
  },
};
