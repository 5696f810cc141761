import { describe, expect, test } from "bun:test";
import { makeCapturedRequest } from "../test-utils/requests-fixtures.ts";
import { bodyText, presentRequest } from "./requests.present.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

describe("body_encoding (decisions.md §6)", () => {
  test.each([
    ["empty", bytes(), "", "utf8"],
    ["ascii JSON", new TextEncoder().encode('{"a":1}'), '{"a":1}', "utf8"],
    ["multibyte UTF-8", new TextEncoder().encode("héllo ✓ 🙂"), "héllo ✓ 🙂", "utf8"],
    ["a leading BOM is kept", bytes(0xef, 0xbb, 0xbf, 0x61), "\uFEFFa", "utf8"],
    ["NUL bytes are valid UTF-8", bytes(0x61, 0x00, 0x62), "a\u0000b", "utf8"],
    ["binary", bytes(0x00, 0xff, 0x10, 0x80), "AP8QgA==", "base64"],
    ["a lone continuation byte", bytes(0x61, 0x80), "YYA=", "base64"],
    ["a truncated multibyte sequence", bytes(0xe2, 0x9c), "4pw=", "base64"],
    ["an overlong encoding", bytes(0xc0, 0xaf), "wK8=", "base64"],
    ["a UTF-16 surrogate encoded in UTF-8", bytes(0xed, 0xa0, 0x80), "7aCA", "base64"],
  ])("%s", (_label, body, text, encoding) => {
    expect(bodyText(body)).toEqual({ body: text, body_encoding: encoding as "utf8" | "base64" });
  });

  test("base64 text gives back the exact bytes", () => {
    const body = new Uint8Array(256).map((_, i) => 255 - i);
    const shown = bodyText(body);
    expect(shown.body_encoding).toBe("base64");
    expect(new Uint8Array(Buffer.from(shown.body, "base64"))).toEqual(body);
  });
});

test("a captured request in the API: every field, status as text", () => {
  const request = makeCapturedRequest({
    id: "r1",
    endpointId: "e1",
    method: "PUT",
    path: "/a/b",
    queryString: "x=1&x=2",
    headers: { "x-a": "1, 2" },
    rawHeaders: [
      ["X-A", "1"],
      ["x-a", "2"],
    ],
    body: "hi",
    contentType: "text/plain",
    remoteIp: "10.0.0.1",
    status: 202,
    createdAt: "2026-01-01T00:00:00.000Z",
  });
  expect(presentRequest(request)).toEqual({
    id: "r1",
    debug_endpoint_id: "e1",
    method: "PUT",
    path: "/a/b",
    query_string: "x=1&x=2",
    headers: { "x-a": "1, 2" },
    raw_headers: [
      ["X-A", "1"],
      ["x-a", "2"],
    ],
    body: "hi",
    body_encoding: "utf8",
    content_type: "text/plain",
    size: 2,
    remote_ip: "10.0.0.1",
    status: "202",
    created_at: "2026-01-01T00:00:00.000Z",
    verification: { status: "not_configured", reason: null },
  });
});
