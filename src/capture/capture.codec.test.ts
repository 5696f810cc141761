import { expect, test } from "bun:test";
import { decodeBatch, encodeBatch, toInsertRow } from "./capture.codec.ts";
import type { CapturedRequest } from "./capture.model.ts";

const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);

function request(fields: Partial<CapturedRequest>): CapturedRequest {
  return {
    id: "0190a1b2-0000-7000-8000-000000000001",
    endpointId: "endpoint-1",
    method: "POST",
    path: "/sub/päth",
    queryString: "a=1&b=%FF",
    headers: { "content-type": "application/octet-stream", "x-emoji": "🦆 ü" },
    rawHeaders: [
      ["content-type", "application/octet-stream"],
      ["x-emoji", "🦆 ü"],
    ],
    body: allBytes,
    contentType: "application/octet-stream",
    size: 256,
    remoteIp: "2001:db8::1",
    status: 201,
    createdAt: "2026-01-01T00:00:00.000Z",
    ...fields,
  };
}

test("a batch survives the trip to the store thread exactly, binary bodies and nulls included", () => {
  const batch = [
    request({}),
    request({ id: "id-2", body: new Uint8Array(0), size: 0, contentType: null, remoteIp: null }),
    request({ id: "id-3", body: new TextEncoder().encode("x".repeat(70_000)), size: 70_000 }),
  ];
  const decoded = decodeBatch(encodeBatch(batch));
  expect(decoded).toEqual(batch.map(toInsertRow));
  expect(Array.from(decoded[0]?.[7] ?? [])).toEqual(Array.from(allBytes));
});

test("an empty batch encodes to a count of zero", () => {
  expect(decodeBatch(encodeBatch([]))).toEqual([]);
});

test("the encoded buffer is its own, so it can be transferred", () => {
  const encoded = encodeBatch([request({})]);
  expect(encoded.byteOffset).toBe(0);
  expect(encoded.buffer).not.toBe(allBytes.buffer);
});
