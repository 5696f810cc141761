import { afterAll, describe, expect, test } from "bun:test";
import { createOutboundPolicy } from "../../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../../http/outbound/outbound.sender.ts";
import type { ChannelEvent, ChannelProvider } from "./channels.model.ts";
import { channelProvider } from "./channels.registry.ts";
import { routedEventMessage } from "./chat.format.ts";
import { DISCORD_LIMITS, discordChannel } from "./discord.channel.ts";
import { slackChannel } from "./slack.channel.ts";
import { createTelegramChannel, TELEGRAM_TEXT_MAX } from "./telegram.channel.ts";

// Local fakes of the three platforms: each accepts only what the real one documents as valid,
// answers 400 naming the broken limit otherwise, and 429 with the platform's own retry hint when
// asked to.
type Check = (payload: Record<string, unknown>, path: string) => string | null;
const received: Record<string, { path: string; payload: Record<string, unknown> }[]> = {};

function fake(name: string, check: Check, limited: () => Response) {
  received[name] = [];
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const payload = (await request.json()) as Record<string, unknown>;
      if (payload.rate_limit_me) return limited();
      const problem = check(payload, path);
      if (problem) return new Response(problem, { status: 400 });
      received[name]?.push({ path, payload });
      return new Response(name === "discord" ? null : '{"ok":true}', {
        status: name === "discord" ? 204 : 200,
      });
    },
  });
}

const len = (value: unknown) => (typeof value === "string" ? value.length : 0);
type Block = { type: string; text?: { text: string } };
const slackServer = fake(
  "slack",
  (p) => {
    if (typeof p.text !== "string" || !Array.isArray(p.blocks)) return "text and blocks required";
    if ((p.blocks as Block[]).length > 50) return "too many blocks";
    for (const block of p.blocks as Block[]) {
      if (block.type === "header" && len(block.text?.text) > 150) return "header over 150";
      if (block.type === "section" && len(block.text?.text) > 3000) return "section over 3000";
    }
    return null;
  },
  () => new Response("rate_limited", { status: 429, headers: { "retry-after": "7" } }),
);
type Embed = { title?: string; description?: string };
const discordServer = fake(
  "discord",
  (p) => {
    if (len(p.content) > DISCORD_LIMITS.content) return "content over 2000";
    const embeds = (p.embeds ?? []) as Embed[];
    if (!p.content && embeds.length === 0) return "empty message";
    if (embeds.length > 10) return "too many embeds";
    let total = 0;
    for (const embed of embeds) {
      if (len(embed.title) > 256 || len(embed.description) > 4096) return "embed field too long";
      total += len(embed.title) + len(embed.description);
    }
    return total > 6000 ? "embeds over 6000" : null;
  },
  () =>
    Response.json(
      { message: "You are being rate limited.", retry_after: 1.25, global: false },
      { status: 429, headers: { "retry-after": "2" } },
    ),
);
const ALLOWED_TAGS = /<\/?(b|pre)>|<a href="[^"<>]*">|<\/a>/g;
const telegramServer = fake(
  "telegram",
  (p, path) => {
    if (!/^\/bot123:ABC\/sendMessage$/.test(path)) return `bad path ${path}`;
    if (p.chat_id !== "-1001") return "chat_id";
    if (typeof p.text !== "string" || p.text.length === 0) return "text required";
    if (p.text.length > TELEGRAM_TEXT_MAX) return "text over 4096";
    if (p.parse_mode === "HTML") {
      const bare = p.text.replace(ALLOWED_TAGS, "");
      if (/[<>]/.test(bare) || /&(?!(amp|lt|gt|quot);)/.test(bare)) return "unescaped HTML";
    }
    return null;
  },
  () =>
    Response.json({ ok: false, error_code: 429, parameters: { retry_after: 3 } }, { status: 429 }),
);
afterAll(() => {
  for (const server of [slackServer, discordServer, telegramServer]) server.stop(true);
});

const sender = createOutboundSender({
  policy: createOutboundPolicy({ deny: [], allow: [] }),
  timeoutMs: 5000,
});
const context = { checkTarget: () => null };
const telegram = createTelegramChannel(`http://127.0.0.1:${telegramServer.port}`);
const configs = {
  slack: { webhook_url: `http://127.0.0.1:${slackServer.port}/services/T/B/X` },
  discord: { webhook_url: `http://127.0.0.1:${discordServer.port}/api/webhooks/1/abc` },
  telegram: { bot_token: "123:ABC", chat_id: "-1001" },
};
const providers: [keyof typeof configs, ChannelProvider<unknown>][] = [
  ["slack", slackChannel as ChannelProvider<unknown>],
  ["discord", discordChannel as ChannelProvider<unknown>],
  ["telegram", telegram as ChannelProvider<unknown>],
];

function configOf(name: keyof typeof configs, provider: ChannelProvider<unknown>) {
  const checked = provider.validate(configs[name], context);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return checked.config;
}

// A body far beyond every platform's limit, full of characters each parse mode must escape.
const hugeBody = JSON.stringify({
  type: "push",
  html: "<script>alert('x & y')</script>",
  items: Array.from({ length: 2000 }, (_, i) => ({ i, note: "a <b> & c > d 🎉" })),
});
const event: ChannelEvent = routedEventMessage({
  source: "GitHub <prod> & co",
  method: "post",
  path: "/push",
  body: hugeBody,
  occurredAt: "2026-11-24T02:00:00.000Z",
  link: "http://weir.test/events/1",
});

describe("chat providers against local fakes of their platforms", () => {
  test.each(providers)(
    "%s: a huge event is summarised within the platform's limits",
    async (name, provider) => {
      const result = await sender.send(provider.format(event, configOf(name, provider)));
      expect([name, result.status]).toEqual([name, name === "discord" ? 204 : 200]);
      const sent = received[name]?.at(-1)?.payload as Record<string, unknown>;
      const text = JSON.stringify(sent);
      expect(text).toContain("GitHub");
      expect(text).toContain("POST");
      expect(text).toContain("items"); // the body, pretty-printed and cut
      expect(text).toContain("…");
    },
  );

  test("slack sends {text, blocks}; discord an embed; telegram HTML escaped", () => {
    const slack = received.slack?.at(-1)?.payload as { text: string; blocks: Block[] };
    expect(slack.blocks.some((b) => b.text?.text.startsWith('```\n{\n  "type": "push"'))).toBe(
      true,
    );
    const discord = received.discord?.at(-1)?.payload as { embeds: Embed[] };
    expect(discord.embeds[0]?.title).toBe("POST /push from GitHub <prod> & co");
    const tg = received.telegram?.at(-1)?.payload as { text: string; parse_mode: string };
    expect(tg.parse_mode).toBe("HTML");
    expect(tg.text).toContain("GitHub &lt;prod&gt; &amp; co");
    expect(tg.text.length).toBeLessThanOrEqual(TELEGRAM_TEXT_MAX);
  });

  test.each(providers)(
    "%s: a transformation's exact payload is sent as is",
    async (name, provider) => {
      const payloads = {
        slack: { text: "deploy finished", blocks: [] },
        discord: { content: "deploy finished" },
        telegram: { text: "deploy <b>finished</b>", parse_mode: "HTML" },
      };
      const result = await sender.send(
        provider.formatPayload?.(payloads[name], configOf(name, provider)) as never,
      );
      expect(result.status).toBeLessThan(300);
      const sent = received[name]?.at(-1)?.payload;
      const expected = {
        slack: payloads.slack,
        // Unless the payload says otherwise, nobody is pinged.
        discord: { ...payloads.discord, allowed_mentions: { parse: [] } },
        telegram: { chat_id: "-1001", ...payloads.telegram },
      };
      expect(sent).toEqual(expected[name]);
    },
  );

  test.each([
    ["slack", 7000],
    ["discord", 1250],
    ["telegram", 3000],
  ] as const)("%s: a 429 is read for the platform's retry hint (%d ms)", async (name, ms) => {
    const provider = providers.find(([n]) => n === name)?.[1] as ChannelProvider<unknown>;
    const request = provider.formatPayload?.(
      { rate_limit_me: true, text: "x" },
      configOf(name, provider),
    );
    const result = await sender.send(request as never);
    expect(result.status).toBe(429);
    expect(provider.retryAfterMs?.(result)).toBe(ms);
    expect(provider.retryAfterMs?.({ ...result, status: 500 })).toBeNull();
  });
});

describe("a sender's text cannot ping, link or format", () => {
  const hostile: ChannelEvent = routedEventMessage({
    source: "<!channel> <@U123> <http://evil.test|click here> @everyone & <b>x</b>",
    method: "post",
    body: '{"note":"<!here> @here <@&42> <http://evil.test|login>"}',
    occurredAt: "2026-11-24T02:00:00.000Z",
  });

  test("slack: &, < and > are escaped in every mrkdwn text", async () => {
    await sender.send(slackChannel.format(hostile, configs.slack));
    const sent = received.slack?.at(-1)?.payload as { text: string; blocks: Block[] };
    const mrkdwn = [sent.text, ...sent.blocks.slice(1, -1).map((b) => b.text?.text ?? "")];
    for (const text of mrkdwn) expect(text).not.toMatch(/<[!@#h]/);
    expect(sent.text).toContain(
      "&lt;!channel&gt; &lt;@U123&gt; &lt;http://evil.test|click here&gt;",
    );
    expect(sent.text).toContain("&amp; &lt;b&gt;");
    expect(JSON.stringify(sent.blocks)).toContain("&lt;!here&gt;");
  });

  test("discord: allowed_mentions parses nothing", async () => {
    await sender.send(discordChannel.format(hostile, configs.discord));
    const sent = received.discord?.at(-1)?.payload as Record<string, unknown>;
    expect(sent.allowed_mentions).toEqual({ parse: [] });
  });

  test("telegram: HTML parse mode, every tag and entity of the sender escaped", async () => {
    await sender.send(telegram.format(hostile, configs.telegram));
    const sent = received.telegram?.at(-1)?.payload as { text: string; parse_mode: string };
    expect(sent.parse_mode).toBe("HTML");
    expect(sent.text).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(sent.text.replace(ALLOWED_TAGS, "")).not.toMatch(/[<>]/);
  });
});

describe("settings", () => {
  test("webhook_url, bot_token and chat_id may be {{NAME}} references; bad values are refused", () => {
    expect(slackChannel.validate({ webhook_url: "{{SLACK_URL}}" }, context).ok).toBe(true);
    expect(discordChannel.validate({ webhook_url: "not a url" }, context)).toMatchObject({
      ok: false,
      errors: { webhook_url: [expect.any(String)] },
    });
    expect(
      telegram.validate({ bot_token: "{{TG_TOKEN}}", chat_id: "{{TG_CHAT}}" }, context).ok,
    ).toBe(true);
    expect(telegram.validate({}, context)).toMatchObject({
      ok: false,
      errors: { bot_token: [expect.any(String)], chat_id: [expect.any(String)] },
    });
    const denied = slackChannel.validate(
      { webhook_url: "http://169.254.169.254/x" },
      { checkTarget: () => "address not allowed" },
    );
    expect(denied).toEqual({ ok: false, errors: { webhook_url: ["address not allowed"] } });
  });

  test("the registry builds telegram on the configured API base", () => {
    const provider = channelProvider("telegram", { telegramApiBase: "http://127.0.0.1:9/" });
    const request = provider?.format(event, { bot_token: "1:A", chat_id: "5" });
    expect(request?.url).toBe("http://127.0.0.1:9/bot1:A/sendMessage");
    expect(channelProvider("telegram")?.format(event, { bot_token: "1:A", chat_id: "5" }).url).toBe(
      "https://api.telegram.org/bot1:A/sendMessage",
    );
  });
});
