import { expect, test } from "bun:test";
import { bodyText, dedupSettings } from "./dedup.ts";

test("the dedup form's fields become the API's settings, lists split on commas", () => {
  expect(dedupSettings("", "body.id", "300")).toBeNull();
  expect(dedupSettings("body_path", " body.id ", "60")).toEqual({
    enabled: true,
    body_path: "body.id",
    ttl_seconds: 60,
  });
  expect(dedupSettings("include_fields", "body.a, headers.x ,", "300")).toEqual({
    enabled: true,
    include_fields: ["body.a", "headers.x"],
    ttl_seconds: 300,
  });
});

test("a listed body is shown as received text, base64 decoded", () => {
  expect(bodyText({ body: '{"a":1}', body_encoding: "utf8" })).toBe('{"a":1}');
  expect(bodyText({ body: btoa("héllo".replace("é", "e")), body_encoding: "base64" })).toBe(
    "hello",
  );
});
