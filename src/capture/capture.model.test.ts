import { describe, expect, test } from "bun:test";
import { CAPTURE_SAFETY_HEADERS } from "../endpoints/endpoints.model.ts";
import { createClientIpResolver, normalizeIp } from "../http/http.client-ip.ts";
import {
  applyOverride,
  customAnswer,
  defaultAnswer,
  headerViews,
  isExpired,
  isPreflight,
  locateCapture,
  preflightAnswer,
} from "./capture.model.ts";

describe("locateCapture", () => {
  test.each([
    ["http://h/w/abc", { slug: "abc", path: "", queryString: "" }],
    ["http://h/debug/abc", { slug: "abc", path: "", queryString: "" }],
    ["http://h/w/abc/", { slug: "abc", path: "/", queryString: "" }],
    [
      "http://h:8080/w/abc/x/y%2Fz?a=1&a=2&b=%20",
      { slug: "abc", path: "/x/y%2Fz", queryString: "a=1&a=2&b=%20" },
    ],
    ["http://h/debug/abc?", { slug: "abc", path: "", queryString: "" }],
    ["http://h/w/abc?x=/w/zzz", { slug: "abc", path: "", queryString: "x=/w/zzz" }],
  ])("%s", (url, expected) => {
    expect(locateCapture(url)).toEqual(expected);
  });

  test.each(["http://h/", "http://h/api/v1/x", "http://h/w/", "http://h/wx/abc", "http://h/w?x=1"])(
    "%s is not a capture URL",
    (url) => {
      expect(locateCapture(url)).toBeNull();
    },
  );
});

describe("headerViews", () => {
  test("keeps every value; set-cookie repeats are joined in the map and kept apart in the pairs", () => {
    const views = headerViews({ "x-a": "1", "set-cookie": ["a=1", "b=2"], host: "h" });
    expect(views.headers).toEqual({ "x-a": "1", "set-cookie": "a=1, b=2", host: "h" });
    expect(views.rawHeaders).toEqual([
      ["x-a", "1"],
      ["set-cookie", "a=1"],
      ["set-cookie", "b=2"],
      ["host", "h"],
    ]);
  });
});

describe("endpoint state", () => {
  test("an anonymous endpoint is expired from its expires_at on; others never", () => {
    const at = Date.UTC(2026, 0, 8);
    expect(isExpired({ expiresAt: new Date(at).toISOString() }, at - 1)).toBe(false);
    expect(isExpired({ expiresAt: new Date(at).toISOString() }, at)).toBe(true);
    expect(isExpired({ expiresAt: null }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  test("a preflight is OPTIONS naming a method", () => {
    expect(isPreflight("OPTIONS", { "access-control-request-method": "PUT" })).toBe(true);
    expect(isPreflight("OPTIONS", {})).toBe(false);
    expect(isPreflight("POST", { "access-control-request-method": "PUT" })).toBe(false);
  });
});

describe("answers", () => {
  test("the default answer is the spec's JSON with open CORS", () => {
    const answer = defaultAnswer("0190-abc");
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      message: "Webhook received",
      request_id: "0190-abc",
    });
    expect(answer.headers["access-control-allow-origin"]).toBe("*");
  });

  test("a preflight answer grants what was asked", () => {
    const answer = preflightAnswer({
      "access-control-request-method": "DELETE",
      "access-control-request-headers": "x-signature, content-type",
    });
    expect(answer.status).toBe(204);
    expect(answer.headers["access-control-allow-methods"]).toBe("DELETE");
    expect(answer.headers["access-control-allow-headers"]).toBe("x-signature, content-type");
  });

  test("a custom answer keeps its headers (names lowercased) and may close CORS", () => {
    const answer = customAnswer({
      status: 202,
      headers: { "X-Reply": "yes", "Access-Control-Allow-Origin": "https://a.example" },
      body: "ok",
      delayMs: 0,
    });
    expect(answer).toEqual({
      status: 202,
      headers: {
        "x-reply": "yes",
        "access-control-allow-origin": "https://a.example",
        ...CAPTURE_SAFETY_HEADERS,
      },
      body: "ok",
    });
  });

  test("headers no response could carry are dropped, the others kept", () => {
    const answer = customAnswer({
      status: 200,
      headers: { "X-Ok": "1", "Bad Name": "x", "X-Split": "a\r\nInjected: yes" },
      body: "",
      delayMs: 0,
    });
    expect(answer.headers).toEqual({
      "access-control-allow-origin": "*",
      "x-ok": "1",
      ...CAPTURE_SAFETY_HEADERS,
    });
  });

  test("a 1xx status cannot end a request: it is answered as 200", () => {
    expect(customAnswer({ status: 101, headers: {}, body: "", delayMs: 0 }).status).toBe(200);
    expect(applyOverride(defaultAnswer("x"), { status: 100 }).status).toBe(200);
    expect(applyOverride(defaultAnswer("x"), { status: 599 }).status).toBe(599);
  });

  test("an override changes only what it names", () => {
    const base = customAnswer({ status: 202, headers: { a: "1" }, body: "x", delayMs: 0 });
    expect(applyOverride(base, { status: 418, headers: { B: "2" } })).toEqual({
      status: 418,
      headers: { "access-control-allow-origin": "*", a: "1", b: "2", ...CAPTURE_SAFETY_HEADERS },
      body: "x",
    });
  });

  test("an override can neither set session headers nor loosen the sandbox", () => {
    const base = defaultAnswer("x");
    const changed = applyOverride(base, {
      headers: {
        "Set-Cookie": "sid=1",
        "clear-site-data": '"*"',
        "content-security-policy": "default-src *",
        "x-kept": "yes",
      },
    });
    expect(changed.headers["set-cookie"]).toBeUndefined();
    expect(changed.headers["clear-site-data"]).toBeUndefined();
    expect(changed.headers["content-security-policy"]).toBe("sandbox");
    expect(changed.headers["x-content-type-options"]).toBe("nosniff");
    expect(changed.headers["x-kept"]).toBe("yes");
  });
});

describe("client IP", () => {
  test("an IPv4 peer on a dual-stack socket reads as IPv4", () => {
    expect(normalizeIp("::ffff:10.1.2.3")).toBe("10.1.2.3");
    expect(normalizeIp("2001:db8::1")).toBe("2001:db8::1");
  });

  test("without trusted proxies X-Forwarded-For is ignored", () => {
    const resolve = createClientIpResolver([]);
    expect(resolve("::ffff:127.0.0.1", "203.0.113.9")).toBe("127.0.0.1");
  });

  test.each([
    ["the peer is not a proxy: XFF ignored", "198.51.100.7", "203.0.113.9", "198.51.100.7"],
    ["one trusted hop", "10.0.0.2", "203.0.113.9", "203.0.113.9"],
    [
      "right-most untrusted hop wins over forged left ones",
      "10.0.0.2",
      "1.1.1.1, 203.0.113.9, 10.0.0.5",
      "203.0.113.9",
    ],
    ["every hop trusted: the left-most", "10.0.0.2", "10.0.0.9, 10.0.0.5", "10.0.0.9"],
    ["a malformed hop stops the walk", "10.0.0.2", "203.0.113.9, garbage, 10.0.0.5", "10.0.0.5"],
    ["IPv6 proxies and clients", "fd00::2", "2001:db8::7", "2001:db8::7"],
    ["mapped IPv4 peer matches an IPv4 CIDR", "::ffff:10.0.0.2", "203.0.113.9", "203.0.113.9"],
  ])("%s", (_, peer, forwarded, expected) => {
    const resolve = createClientIpResolver(["10.0.0.0/8", "fd00::/8"]);
    expect(resolve(peer, forwarded)).toBe(expected);
  });

  test("a trusted single address (no prefix length) works too", () => {
    const resolve = createClientIpResolver(["127.0.0.1"]);
    expect(resolve("127.0.0.1", "203.0.113.9")).toBe("203.0.113.9");
    expect(resolve("127.0.0.2", "203.0.113.9")).toBe("127.0.0.2");
  });
});
