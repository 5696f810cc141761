import { describe, expect, test } from "bun:test";
import { eventDeliveryRequest, forwardedUrl, routingHops } from "./delivery-request.model.ts";
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
  pathForwarding: true,
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

describe("http destinations get the original request, then the transformation, then their own headers", () => {
  const github: StoredEvent = {
    ...event,
    path: "/orders/created",
    queryString: "x=1",
    rawHeaders: [
      ["Host", "weir.example"],
      ["Content-Type", "application/json"],
      ["Content-Length", "42"],
      ["Connection", "keep-alive, x-hop"],
      ["X-Hop", "named by connection"],
      ["Transfer-Encoding", "chunked"],
      ["Proxy-Authorization", "Basic cHJveHk="],
      ["X-GitHub-Event", "pull_request"],
      ["Set-Cookie", "a=1"],
      ["Set-Cookie", "b=2"],
      ["Webhook-Signature", "v1,forged"],
      ["Webhook-Id", "msg_upstream"],
      ["X-Weir-Forwarded", "1"],
      ["Accept-Encoding", "gzip, br"],
      ["Expect", "100-continue"],
      ["X-Team", "from the sender"],
    ],
  };
  const http = (settings: Partial<Destination>) =>
    destination({ type: "http", webhookUrl: null, url: "https://hooks.internal/in", ...settings });
  const send = (e: StoredEvent, d: Destination) => {
    const prepared = eventDeliveryRequest(e, d, ["whsec_x"]);
    if (!("send" in prepared)) throw new Error("expected a request");
    return prepared.send;
  };

  test("end-to-end headers are kept in order, repeats too; hop-by-hop, host, length and the sender's own are not", () => {
    const request = send(github, http({ headers: { "X-Team": "platform" } }));
    expect(request.headers).toEqual([
      ["Content-Type", "application/json"],
      ["X-GitHub-Event", "pull_request"],
      ["Set-Cookie", "a=1"],
      ["Set-Cookie", "b=2"],
      ["x-team", "platform"],
      ["x-weir-forwarded", "2"],
    ]);
  });

  test("the headers a transformation left (it may set and delete) are what is forwarded", () => {
    const transformed: StoredEvent = {
      ...github,
      rawHeaders: [
        ["content-type", "application/json"],
        ["authorization", "Bearer sk_live"],
      ],
    };
    const request = send(transformed, http({ headers: { authorization: "Bearer mine" } }));
    expect(request.headers).toEqual([
      ["content-type", "application/json"],
      ["authorization", "Bearer mine"],
      ["x-weir-forwarded", "1"],
    ]);
  });

  test("the loop guard counts hops: the destination's own headers cannot reset it", () => {
    const hop = (guard: string | null) =>
      send(
        { ...github, rawHeaders: guard === null ? [] : [["X-Weir-Forwarded", guard]] },
        http({ headers: { "x-weir-forwarded": "0" } }),
      ).headers;
    expect(hop(null)).toEqual([["x-weir-forwarded", "1"]]);
    expect(hop("3")).toEqual([["x-weir-forwarded", "4"]]);
    expect(hop("yes")).toEqual([["x-weir-forwarded", "2"]]);
    expect(routingHops("-7")).toBe(1);
  });

  test("the sub-path and query are appended to the URL; path_forwarding false keeps the URL as written", () => {
    expect(send(github, http({})).url).toBe("https://hooks.internal/in/orders/created?x=1");
    expect(send(github, http({ pathForwarding: false })).url).toBe("https://hooks.internal/in");
  });
});

describe("forwardedUrl joins a sub-path and query onto the destination URL", () => {
  test.each([
    ["https://h.example", "/orders", "", "https://h.example/orders"],
    ["https://h.example/", "/orders", "", "https://h.example/orders"],
    [
      "https://h.example/hooks/",
      "/orders/created",
      "x=1",
      "https://h.example/hooks/orders/created?x=1",
    ],
    [
      "https://h.example/hooks?token=t",
      "/a",
      "x=1&y=2",
      "https://h.example/hooks/a?token=t&x=1&y=2",
    ],
    ["https://h.example/hooks?token=t", "", "", "https://h.example/hooks?token=t"],
    ["https://h.example/hooks", "/", "", "https://h.example/hooks"],
    ["https://h.example/hooks", "//a//b/", "", "https://h.example/hooks/a/b/"],
    ["https://h.example/hooks#top", "/a", "", "https://h.example/hooks/a"],
    ["{{HOOK_URL}}", "/a", "x=1", "{{HOOK_URL}}/a?x=1"],
  ])("%s + %s ? %s → %s", (base, path, query, expected) => {
    expect(forwardedUrl(base, path, query)).toBe(expected);
  });

  test("dot segments, plain or percent-encoded, never climb out of the destination's path", () => {
    for (const path of ["/../admin", "/%2e%2e/%2E%2E/admin", "/./a/../admin", "/%2e./admin"]) {
      const url = new URL(forwardedUrl("https://h.example/hooks", path, ""));
      expect(url.pathname.startsWith("/hooks/")).toBe(true);
    }
    expect(new URL(forwardedUrl("https://h.example/hooks", "/a\\..\\..\\x", "")).pathname).toBe(
      "/hooks/a%5C..%5C..%5Cx",
    );
  });

  test("a dot segment with path parameters (`..;`, read as `..` by Tomcat and Spring) is dropped too", () => {
    for (const path of ["/..;/admin", "/..;jsessionid=x/admin", "/%2e%2e;/admin", "/..%3b/admin"]) {
      expect(new URL(forwardedUrl("https://h.example/hooks", path, "")).pathname).toBe(
        "/hooks/admin",
      );
    }
    expect(new URL(forwardedUrl("https://h.example/hooks", "/a;v=1/b", "")).pathname).toBe(
      "/hooks/a;v=1/b",
    );
  });

  test("tabs and newlines in a sub-path (a transformation copying a sender's field) cannot make a dot segment", () => {
    // URL parsing drops every tab and newline, so ".\t." would become ".." once the URL is read.
    for (const path of ["/.\t./admin", "/.\n./.\r./admin", "/\t../admin", "/%2e\n%2e/admin"]) {
      const url = new URL(forwardedUrl("https://h.example/hooks", path, ""));
      expect(url.pathname.startsWith("/hooks/")).toBe(true);
      expect(url.host).toBe("h.example");
    }
  });
});
