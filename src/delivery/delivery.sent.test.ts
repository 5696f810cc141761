import { expect, test } from "bun:test";
import { concealer } from "../shared/conceal.ts";
import { SENT_BODY_LIMIT, sentRequest } from "./delivery.sent.ts";

const plain = (text: string) => text;

test("a text body is kept whole up to 64 KiB, with its size", () => {
  const sent = sentRequest([["content-type", "text/plain"]], "héllo", plain);
  expect(sent).toEqual({
    headers: [["content-type", "text/plain"]],
    body: "héllo",
    bodyEncoding: "utf8",
    bodyTruncated: false,
    bodySize: 6,
  });
});

test("a cut inside a character gives the partial character back instead of turning to base64", () => {
  const body = `${"a".repeat(SENT_BODY_LIMIT - 1)}é and more`;
  const sent = sentRequest([], body, plain);
  expect([sent.bodyEncoding, sent.bodyTruncated, sent.body]).toEqual([
    "utf8",
    true,
    "a".repeat(SENT_BODY_LIMIT - 1),
  ]);
  expect(sent.bodySize).toBe(Buffer.byteLength(body));
});

test("a body that is not UTF-8 is kept as base64", () => {
  const sent = sentRequest([], new Uint8Array([0xff, 0xfe, 0x00]), plain);
  expect([sent.body, sent.bodyEncoding]).toEqual(["//4A", "base64"]);
});

test("header values and a text body have their secrets concealed", () => {
  const conceal = concealer([["tok-secret-1", "{{TOKEN}}"]]);
  const sent = sentRequest(
    [["authorization", "Bearer tok-secret-1"]],
    '{"token":"tok-secret-1"}',
    conceal,
  );
  expect(sent.headers).toEqual([["authorization", "Bearer {{TOKEN}}"]]);
  expect(sent.body).toBe('{"token":"{{TOKEN}}"}');
});

test("the subject's own body, sent unchanged, is not copied into the record: readers take it from the subject", () => {
  const body = "é".repeat(SENT_BODY_LIMIT);
  const sent = sentRequest([["x-trace", "1"]], body, (text) => text, true);
  expect(sent).toEqual({
    headers: [["x-trace", "1"]],
    body: null,
    bodyEncoding: "utf8",
    bodyTruncated: true,
    bodySize: Buffer.byteLength(body),
  });
});
