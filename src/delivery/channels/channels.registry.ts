import type { ChannelProvider, ChannelType } from "./channels.model.ts";
import { discordChannel } from "./discord.channel.ts";
import { gotifyChannel } from "./gotify.channel.ts";
import { ntfyChannel } from "./ntfy.channel.ts";
import { slackChannel } from "./slack.channel.ts";
import { createTelegramChannel, DEFAULT_TELEGRAM_API_BASE } from "./telegram.channel.ts";
import { webhookChannel } from "./webhook.channel.ts";

export interface ChannelOptions {
  /** `WEIR_TELEGRAM_API_BASE` (config `telegram_api_base`). */
  telegramApiBase?: string;
}

const telegramByBase = new Map<string, ChannelProvider<unknown>>();

/** The provider of a channel type, or null for an unknown type. */
export function channelProvider(
  type: string,
  options: ChannelOptions = {},
): ChannelProvider<unknown> | null {
  switch (type as ChannelType) {
    case "webhook":
      return webhookChannel as ChannelProvider<unknown>;
    case "slack":
      return slackChannel as ChannelProvider<unknown>;
    case "discord":
      return discordChannel as ChannelProvider<unknown>;
    case "ntfy":
      return ntfyChannel as ChannelProvider<unknown>;
    case "gotify":
      return gotifyChannel as ChannelProvider<unknown>;
    case "telegram": {
      const base = options.telegramApiBase || DEFAULT_TELEGRAM_API_BASE;
      let provider = telegramByBase.get(base);
      if (!provider) {
        provider = createTelegramChannel(base) as ChannelProvider<unknown>;
        telegramByBase.set(base, provider);
      }
      return provider;
    }
    default:
      return null;
  }
}
