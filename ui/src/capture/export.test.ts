import { describe, expect, test } from "bun:test";
import type { CapturedRequest } from "../lib/types.ts";
import { toHar, toJsonExport } from "./export.ts";

const base: CapturedRequest = {
  id: "01900000-0000-7000-8000-000000000002",
  debug_endpoint_id: "ep",
  method: "POST",
  path: "/github",
  query_string: "delivery=7&a=1",
  headers: { "content-type": "application/json", "x-test": "1" },
  raw_headers: [
    ["Content-Type", "application/json"],
    ["X-Test", "1"],
  ],
  body: '{"a":1}',
  body_encoding: "utf8",
  content_type: "application/json",
  size: 7,
  remote_ip: "10.0.0.9",
  status: "200",
  created_at: "2026-01-02T03:04:05.678Z",
};
const older: CapturedRequest = {
  ...base,
  id: "01900000-0000-7000-8000-000000000001",
  method: "GET",
  path: "",
  query_string: "",
  raw_headers: [],
  body: "",
  size: 0,
  created_at: "2026-01-01T00:00:00.000Z",
};
const endpoint = { id: "ep", name: "Orders", webhook_url: "http://hooks.lan:8080/w/orders" };

describe("export", () => {
  test("HAR 1.2: oldest first, the URL the sender used, ordered headers, query, body", () => {
    const har = JSON.parse(toHar([base, older], endpoint, "0.1.0"));
    expect(har.log.version).toBe("1.2");
    expect(har.log.creator).toEqual({ name: "Weir", version: "0.1.0" });
    const [first, second] = har.log.entries;
    expect(first.request).toMatchObject({ method: "GET", url: "http://hooks.lan:8080/w/orders" });
    expect(first.request.postData).toBeUndefined();
    expect(second.startedDateTime).toBe(base.created_at);
    expect(second.request).toEqual({
      method: "POST",
      url: "http://hooks.lan:8080/w/orders/github?delivery=7&a=1",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [
        { name: "Content-Type", value: "application/json" },
        { name: "X-Test", value: "1" },
      ],
      queryString: [
        { name: "delivery", value: "7" },
        { name: "a", value: "1" },
      ],
      postData: { mimeType: "application/json", text: '{"a":1}' },
      headersSize: -1,
      bodySize: 7,
    });
    expect(second.response.status).toBe(200);
    for (const key of ["cache", "timings", "time"]) expect(second).toHaveProperty(key);
  });

  test("a binary body stays base64, marked", () => {
    const har = JSON.parse(
      toHar([{ ...base, body: "/w==", body_encoding: "base64", size: 2 }], endpoint, "x"),
    );
    expect(har.log.entries[0].request.postData).toMatchObject({
      text: "/w==",
      _encoding: "base64",
    });
  });

  test("JSON: the API's records with the endpoint and when", () => {
    const json = JSON.parse(toJsonExport([base], endpoint, "2026-02-01T00:00:00.000Z"));
    expect(json).toEqual({
      endpoint,
      exported_at: "2026-02-01T00:00:00.000Z",
      count: 1,
      requests: [base],
    });
  });
});
