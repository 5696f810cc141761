import { describe, expect, test } from "bun:test";
import { httpHeaders } from "./delivery-request.model.ts";
import type { Destination } from "./destinations.model.ts";
import {
  exactChatPayload,
  scriptRequestOf,
  transformedEvent,
  withSecrets,
} from "./event-prepare.model.ts";
import type { StoredEvent } from "./events.repo.ts";

const destination = {
  id: "d1",
  type: "telegram",
  url: "https://{{HOST}}/hook",
  headers: { authorization: "Bearer {{API_KEY}}", "x-plain": "as is" },
  webhookUrl: "{{SLACK_URL}}",
  botToken: "{{TG_TOKEN}}",
  chatId: "{{TG_CHAT}}",
  transformationId: null,
  pathForwarding: true,
} as unknown as Destination;
const SECRETS: Record<string, string> = {
  HOST: "h.example",
  API_KEY: "k1",
  SLACK_URL: "https://hooks.example/s",
  TG_TOKEN: "9:T",
  TG_CHAT: "-42",
};

describe("send-time secrets", () => {
  test("every {{NAME}} in url, headers, webhook_url, bot_token and chat_id is filled in", () => {
    const result = withSecrets(destination, (name) => SECRETS[name]);
    expect(result).toMatchObject({
      destination: {
        url: "https://h.example/hook",
        headers: { authorization: "Bearer k1", "x-plain": "as is" },
        webhookUrl: "https://hooks.example/s",
        botToken: "9:T",
        chatId: "-42",
      },
    });
  });

  test("an unknown name fails as authentication_error/missing_secret naming it, retried normally", () => {
    const result = withSecrets(destination, (name) =>
      name === "TG_TOKEN" ? undefined : SECRETS[name],
    );
    expect(result).toEqual({
      fail: {
        errorType: "authentication_error",
        errorCode: "missing_secret",
        message: "secret TG_TOKEN is not defined",
        retryable: true,
      },
    });
  });
});

describe("a transformed event", () => {
  const event = {
    id: "e1",
    method: "POST",
    path: "/push",
    queryString: "a=1",
    headers: { "content-type": "application/json" },
    rawHeaders: [["content-type", "application/json"]],
    body: new TextEncoder().encode('{"n":1}'),
  } as unknown as StoredEvent;

  test("the script sees the event; what it returns is what is sent", () => {
    expect(scriptRequestOf(event)).toEqual({
      method: "POST",
      path: "/push",
      query: { a: "1" },
      headers: { "content-type": "application/json" },
      body: '{"n":1}',
    });
    const sent = transformedEvent(event, {
      method: "PUT",
      path: "/x",
      query: { b: 2 },
      headers: { "X-Env": "eu" },
      body: { reduced: true },
    });
    expect(new TextDecoder().decode(sent.body)).toBe('{"reduced":true}');
    expect([sent.method, sent.path, sent.queryString]).toEqual(["PUT", "/x", "b=2"]);
    expect(sent.headers).toEqual({ "x-env": "eu", "content-type": "application/json" });
  });

  test("a transformation cannot drop or lower the loop guard's hop count", () => {
    const looped = {
      ...event,
      headers: { ...event.headers, "x-weir-forwarded": "3" },
      rawHeaders: [...event.rawHeaders, ["X-Weir-Forwarded", "3"]],
    } as StoredEvent;
    const request = { method: "POST", path: "/", query: {}, body: "" };
    const http = { ...destination, type: "http", headers: null } as Destination;
    for (const headers of [{}, { "x-weir-forwarded": "0" }] as Record<string, string>[]) {
      const sent = transformedEvent(looped, { ...request, headers });
      expect(httpHeaders(sent, http)).toContainEqual(["x-weir-forwarded", "4"]);
    }
    expect(transformedEvent(event, { ...request, headers: {} }).headers).toEqual({});
  });
});

test("a chat destination sends a transformation's object body exactly; http does not", () => {
  const slack = {
    ...destination,
    type: "slack",
    webhookUrl: "https://hooks.example/s",
  } as Destination;
  expect(exactChatPayload(slack, { text: "hi", blocks: [] }, undefined)).toEqual({
    url: "https://hooks.example/s",
    method: "POST",
    headers: [["content-type", "application/json"]],
    body: '{"text":"hi","blocks":[]}',
    signingSecrets: [],
  });
  const telegram = { ...destination, botToken: "9:T", chatId: "-42" } as Destination;
  expect(exactChatPayload(telegram, { text: "hi" }, "http://127.0.0.1:9")?.url).toBe(
    "http://127.0.0.1:9/bot9:T/sendMessage",
  );
  expect(
    exactChatPayload({ ...destination, type: "http" } as Destination, { a: 1 }, undefined),
  ).toBeNull();
  expect(exactChatPayload(slack, "plain text", undefined)).toBeNull();
});
