import { describe, expect, test } from "bun:test";
import { eventDeliveryRequest } from "./delivery-request.model.ts";
import type { Destination } from "./destinations.model.ts";
import type { StoredEvent } from "./events.repo.ts";

const body = JSON.stringify({ action: "opened", pull_request: { title: "x".repeat(10_000) } });
const event: StoredEvent = {
  id: "ev-1",
  organizationId: "org-1",
  sourceId: "src-1",
  method: "post",
  path: "/github",
  queryString: "",
  headers: { "content-type": "application/json" },
  rawHeaders: [["content-type", "application/json"]],
  body: new TextEncoder().encode(body),
  status: "pending",
  createdAt: "2026-11-24T10:00:00.000Z",
};

const destination = (settings: Partial<Destination>): Destination => ({
  id: "d-1",
  bridgeId: "br-1",
  organizationId: "org-1",
  name: "chat",
  type: "slack",
  priority: "normal",
  url: null,
  method: null,
  headers: null,
  maxRetries: 15,
  webhookUrl: "http://127.0.0.1:9/hook",
  botToken: null,
  chatId: null,
  filters: [],
  transformationId: null,
  createdAt: event.createdAt,
  updatedAt: event.createdAt,
  ...settings,
});

function sent(d: Destination, telegramApiBase?: string) {
  const prepared = eventDeliveryRequest(event, d, [], { sourceName: "GitHub", telegramApiBase });
  if (!("send" in prepared)) throw new Error("expected a request");
  return {
    ...prepared.send,
    json: JSON.parse(String(prepared.send.body)) as Record<string, unknown>,
  };
}

describe("chat destinations get their platform's summary of the event", () => {
  test("Slack: {text, blocks} naming the source and method, body pretty-printed and cut", () => {
    const request = sent(destination({ type: "slack" }));
    expect(request.url).toBe("http://127.0.0.1:9/hook");
    expect(request.signingSecrets).toEqual([]);
    expect(String(request.json.text)).toContain("POST /github from GitHub");
    const blocks = request.json.blocks as { text?: { text: string } }[];
    const code = blocks.map((b) => b.text?.text ?? "").find((t) => t.startsWith("```"));
    expect(code).toContain('"action": "opened"');
    for (const block of blocks) expect((block.text?.text ?? "").length).toBeLessThanOrEqual(3000);
  });

  test("Discord: within its 2,000-character content / embed limits", () => {
    const request = sent(destination({ type: "discord" }));
    const text = JSON.stringify(request.json);
    expect(text).toContain("GitHub");
    if (typeof request.json.content === "string") {
      expect(request.json.content.length).toBeLessThanOrEqual(2000);
    } else {
      expect(Array.isArray(request.json.embeds)).toBe(true);
    }
  });

  test("Telegram: sendMessage at WEIR_TELEGRAM_API_BASE with chat_id, parse mode and ≤ 4,096 characters", () => {
    const d = destination({
      type: "telegram",
      webhookUrl: null,
      botToken: "123:abc",
      chatId: "42",
    });
    const request = sent(d, "http://127.0.0.1:7777");
    expect(request.url).toBe("http://127.0.0.1:7777/bot123:abc/sendMessage");
    expect(request.json).toMatchObject({ chat_id: "42", parse_mode: "HTML" });
    expect(String(request.json.text).length).toBeLessThanOrEqual(4096);
    expect(String(request.json.text)).toContain("GitHub");
  });
});
