import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOutboundPolicy } from "../../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../../http/outbound/outbound.sender.ts";
import { type RawSink, startRawSink } from "../../test-utils/raw-sink.ts";
import type { ChannelEvent } from "./channels.model.ts";
import { channelProvider } from "./channels.registry.ts";
import { webhookChannel } from "./webhook.channel.ts";

const policy = createOutboundPolicy({ deny: [], allow: [] });
const context = {
  checkTarget: (url: string) => {
    const verdict = policy.checkUrl(url);
    return verdict.allowed ? null : verdict.reason;
  },
};

const event: ChannelEvent = {
  kind: "monitor_down",
  title: "API is down",
  text: "3 checks failed in a row.",
  link: "https://weir.example/monitors/m1",
  occurredAt: "2026-11-24T01:00:00.000Z",
  data: { monitor_id: "m1", status_code: 503 },
};

describe("webhook channel: validate", () => {
  test("a URL and optional headers", () => {
    expect(webhookChannel.validate({ url: "https://hooks.example/a" }, context)).toEqual({
      ok: true,
      config: { url: "https://hooks.example/a", headers: {} },
    });
    expect(
      webhookChannel.validate({ url: "http://10.0.0.2/x", headers: { "X-Token": "t" } }, context),
    ).toEqual({ ok: true, config: { url: "http://10.0.0.2/x", headers: { "X-Token": "t" } } });
  });

  test("a URL or header value may be a {{SECRET_NAME}} reference, filled in at send time", () => {
    const config = { url: "{{HOOK_URL}}", headers: { Authorization: "Bearer {{HOOK_TOKEN}}" } };
    expect(webhookChannel.validate(config, context)).toEqual({ ok: true, config });
  });

  test.each([
    [{}, ["url"]],
    [{ url: "ftp://x" }, ["url"]],
    [{ url: "http://169.254.169.254/" }, ["url"]],
    [{ url: "https://h.example", headers: "x" }, ["headers"]],
    [{ url: "https://h.example", headers: { Host: "other" } }, ["headers.Host"]],
    [{ url: "https://h.example", headers: { "X-A": "a\r\nX-B: b" } }, ["headers.X-A"]],
    [null, ["url"]],
  ])("%p → 422 on %p", (config, fields) => {
    const result = webhookChannel.validate(config, context);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(Object.keys(result.errors)).toEqual(fields);
  });
});

describe("webhook channel: format, sent through the outbound sender", () => {
  let sink: RawSink;
  beforeAll(async () => {
    sink = await startRawSink();
  });
  afterAll(() => sink.stop());

  test("one JSON POST with the event and the configured headers, nothing else", async () => {
    const sender = createOutboundSender({ policy, timeoutMs: 2000 });
    const request = webhookChannel.format(event, {
      url: `${sink.url}/alerts`,
      headers: { "X-Token": "t" },
    });
    const result = await sender.send(request);
    expect(result.status).toBe(200);
    const got = sink.requests.at(-1);
    expect(got?.requestLine).toBe("POST /alerts HTTP/1.1");
    expect(got?.headers.map(([name]) => name)).toEqual([
      "Host",
      "content-type",
      "X-Token",
      "Content-Length",
      "Connection",
    ]);
    expect(JSON.parse(new TextDecoder().decode(got?.body))).toEqual({
      type: "monitor_down",
      title: "API is down",
      text: "3 checks failed in a row.",
      link: "https://weir.example/monitors/m1",
      occurred_at: "2026-11-24T01:00:00.000Z",
      data: { monitor_id: "m1", status_code: 503 },
    });
  });

  test("the registry knows webhook and the three chat services, nothing else", () => {
    const types = ["webhook", "slack", "discord", "telegram", "nope"];
    expect(types.map((type) => channelProvider(type)?.type ?? null)).toEqual([
      "webhook",
      "slack",
      "discord",
      "telegram",
      null,
    ]);
  });
});
