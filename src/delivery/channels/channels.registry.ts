import type { ChannelProvider, ChannelType } from "./channels.model.ts";
import { webhookChannel } from "./webhook.channel.ts";

/**
 * The providers that exist, by type. Slack, Discord and Telegram join as one file each behind
 * the same interface; until then their type has no provider and saving one is refused.
 */
const PROVIDERS: Partial<Record<ChannelType, ChannelProvider<unknown>>> = {
  webhook: webhookChannel as ChannelProvider<unknown>,
};

/** The provider of a channel type, or null when none is built yet. */
export function channelProvider(type: string): ChannelProvider<unknown> | null {
  return PROVIDERS[type as ChannelType] ?? null;
}
