import { describe, expect, test } from "bun:test";
import type { CapturedRequest } from "../capture/capture.model.ts";
import { PUSHED_BODY_LIMIT, webhookReceived } from "./realtime.payload.model.ts";
import {
  decodeFrame,
  encodeFrame,
  endpointIdOfTopic,
  type Frame,
  replyTo,
  serializerFor,
} from "./realtime.protocol.model.ts";

const join: Frame = {
  joinRef: "3",
  ref: "3",
  topic: "debug:abc",
  event: "phx_join",
  payload: { since_request_id: "r1" },
};

describe("serializers", () => {
  test("2.0.0 is the array form the phoenix client sends", () => {
    const text = '["3","3","debug:abc","phx_join",{"since_request_id":"r1"}]';
    expect(decodeFrame("2.0.0", text)).toEqual(join);
    expect(encodeFrame("2.0.0", join)).toBe(text);
  });

  test("1.0.0 is the object form", () => {
    const text = JSON.stringify({
      join_ref: "3",
      ref: "3",
      topic: "debug:abc",
      event: "phx_join",
      payload: { since_request_id: "r1" },
    });
    expect(decodeFrame("1.0.0", text)).toEqual(join);
    expect(JSON.parse(encodeFrame("1.0.0", join))).toEqual(JSON.parse(text));
  });

  test("an already parsed value decodes like its text", () => {
    expect(decodeFrame("2.0.0", [null, "7", "phoenix", "heartbeat", {}])).toEqual({
      joinRef: null,
      ref: "7",
      topic: "phoenix",
      event: "heartbeat",
      payload: {},
    });
  });

  test("numeric refs become text and a missing payload becomes {}", () => {
    expect(decodeFrame("1.0.0", { ref: 5, topic: "phoenix", event: "heartbeat" })).toEqual({
      joinRef: null,
      ref: "5",
      topic: "phoenix",
      event: "heartbeat",
      payload: {},
    });
  });

  test.each([
    ["2.0.0", "not json"],
    ["2.0.0", "[1,2,3]"],
    ["2.0.0", '{"topic":"t","event":"e"}'],
    ["2.0.0", '[null,null,"",  "e",{}]'],
    ["2.0.0", '[null,null,"t", 5,{}]'],
    ["2.0.0", '[{},null,"t","e",{}]'],
    ["1.0.0", '["1","1","t","e",{}]'],
    ["1.0.0", '{"topic":"t"}'],
    ["1.0.0", "null"],
  ] as const)("%s refuses %s", (serializer, text) => {
    expect(decodeFrame(serializer, text)).toBeNull();
  });

  test("a reply echoes both refs and the topic", () => {
    expect(replyTo(join, "error", { reason: "unauthorized" })).toEqual({
      joinRef: "3",
      ref: "3",
      topic: "debug:abc",
      event: "phx_reply",
      payload: { status: "error", response: { reason: "unauthorized" } },
    });
  });

  test("vsn picks the serializer; none means 1.0.0 as in Phoenix", () => {
    expect(serializerFor("2.0.0")).toBe("2.0.0");
    expect(serializerFor("1.0.0")).toBe("1.0.0");
    expect(serializerFor(undefined)).toBe("1.0.0");
    expect(serializerFor("3.0.0")).toBeNull();
    expect(serializerFor("2")).toBeNull();
  });

  test("only debug:<id> topics name an endpoint", () => {
    expect(endpointIdOfTopic("debug:0190-abc")).toBe("0190-abc");
    expect(endpointIdOfTopic("debug:")).toBeNull();
    expect(endpointIdOfTopic("room:lobby")).toBeNull();
  });
});

const captured = (body: Uint8Array): CapturedRequest => ({
  id: "req-1",
  endpointId: "ep-1",
  method: "POST",
  path: "/hooks",
  queryString: "a=1",
  headers: { "content-type": "application/json", "x-many": "a, b" },
  rawHeaders: [["Content-Type", "application/json"]],
  body,
  contentType: "application/json",
  size: body.byteLength,
  remoteIp: "127.0.0.1",
  status: 200,
  createdAt: "2026-01-01T00:00:00.000Z",
});

const bytes = (text: string) => new TextEncoder().encode(text);

describe("webhook_received payload", () => {
  test("a text body gives exactly the seven fields of the spec", () => {
    expect(webhookReceived(captured(bytes('{"a":1}')))).toStrictEqual({
      request_id: "req-1",
      endpoint_id: "ep-1",
      method: "POST",
      headers: { "content-type": "application/json", "x-many": "a, b" },
      body: '{"a":1}',
      status: "200",
      timestamp: "2026-01-01T00:00:00.000Z",
    });
  });

  test("a byte-order mark stays in the text", () => {
    expect(webhookReceived(captured(bytes("\uFEFFhi"))).body).toBe("\uFEFFhi");
  });

  test("a binary body is base64 and says so", () => {
    const payload = webhookReceived(captured(new Uint8Array([0xff, 0x00, 0xfe])));
    expect(payload.body).toBe("/wD+");
    expect(payload.body_encoding).toBe("base64");
    expect(payload.body_truncated).toBeUndefined();
  });

  test("a body over the limit is cut, flagged and sized", () => {
    const body = bytes("x".repeat(PUSHED_BODY_LIMIT + 10));
    const payload = webhookReceived(captured(body));
    expect(payload.body).toHaveLength(PUSHED_BODY_LIMIT);
    expect(payload.body_truncated).toBe(true);
    expect(payload.body_size).toBe(PUSHED_BODY_LIMIT + 10);
    expect(payload.body_encoding).toBeUndefined();
  });

  test("a cut inside a multi-byte character keeps the text and drops the partial character", () => {
    // "é" is two bytes: a limit of 3 cuts the second "é" in half.
    const payload = webhookReceived(captured(bytes("éé")), 3);
    expect(payload.body).toBe("é");
    expect(payload.body_encoding).toBeUndefined();
    expect(payload.body_truncated).toBe(true);
  });

  test("a cut binary body is base64 of the first bytes", () => {
    const payload = webhookReceived(captured(new Uint8Array([0xff, 1, 2, 3])), 2);
    expect(payload.body).toBe(Buffer.from([0xff, 1]).toString("base64"));
    expect(payload.body_encoding).toBe("base64");
    expect(payload.body_size).toBe(4);
  });
});
