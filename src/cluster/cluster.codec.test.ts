import { describe, expect, test } from "bun:test";
import { createDecoder, createEncoder } from "./cluster.codec.ts";

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
const POSTGRES_LIMIT = 8000;

describe("cluster notifications", () => {
  test("a small event is one notification; bytes and text survive", () => {
    const payload = { endpointId: "ep_1", body: new Uint8Array([0, 255, 10]), note: "ünï ✓" };
    const sent = createEncoder("a")("request.captured", payload);
    expect(sent).toHaveLength(1);
    expect(createDecoder("b").accept(sent[0] ?? "")).toEqual({
      origin: "a",
      event: "request.captured",
      payload,
    });
  });

  test("a large event is split under PostgreSQL's limit and put together again, in any order", () => {
    // Multi-byte text counts in bytes, not characters.
    const payload = {
      body: crypto.getRandomValues(new Uint8Array(50_000)),
      text: "✓".repeat(9000),
    };
    const sent = createEncoder("a")("request.captured", payload);
    expect(sent.length).toBeGreaterThan(1);
    for (const message of sent) expect(Buffer.byteLength(message)).toBeLessThan(POSTGRES_LIMIT);
    const decoder = createDecoder("b");
    const [first, ...rest] = sent;
    for (const message of rest.reverse()) expect(decoder.accept(message)).toBeNull();
    expect(decoder.accept(first ?? "")?.payload).toEqual(payload);
  });

  test("a node drops its own notifications, and parts cut off by a reconnect", () => {
    const encode = createEncoder("a");
    const [own] = encode("endpoint.deleted", { endpointId: "ep_1" });
    expect(createDecoder("a").accept(own ?? "")).toBeNull();

    const parts = encode("request.captured", { body: new Uint8Array(20_000) });
    const decoder = createDecoder("b");
    expect(decoder.accept(parts[0] ?? "")).toBeNull();
    decoder.reset();
    for (const part of parts.slice(1)) expect(decoder.accept(part)).toBeNull();
  });
});
