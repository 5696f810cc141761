import { describe, expect, test } from "bun:test";
import { createPublicBaseUrl } from "./http.public-url.ts";

const peer = (address: string) => ({ requestIP: () => ({ address }) });
const request = (headers: Record<string, string>, url = "http://10.0.0.5:8080/api/v1/endpoints") =>
  new Request(url, { headers });

describe("public base URL for a request", () => {
  const derived = createPublicBaseUrl({ base_url: "", trusted_proxies: ["127.0.0.1"] });

  test("without base_url: the Host the client used, and the request's scheme", () => {
    expect(derived(request({ host: "homelab.lan:8080" }), peer("192.168.1.20"))).toBe(
      "http://homelab.lan:8080",
    );
    expect(derived(request({ host: "[fd00::1]:8080" }), peer("192.168.1.20"))).toBe(
      "http://[fd00::1]:8080",
    );
  });

  test("X-Forwarded-Host/-Proto count only from a trusted proxy", () => {
    const forwarded = {
      host: "127.0.0.1:8080",
      "x-forwarded-host": "hooks.example.com, inner.lan",
      "x-forwarded-proto": "https",
    };
    expect(derived(request(forwarded), peer("127.0.0.1"))).toBe("https://hooks.example.com");
    expect(derived(request(forwarded), peer("::ffff:127.0.0.1"))).toBe("https://hooks.example.com");
    expect(derived(request(forwarded), peer("203.0.113.7"))).toBe("http://127.0.0.1:8080");
    expect(derived(request(forwarded))).toBe("http://127.0.0.1:8080");
  });

  test("a malformed Host or forwarded value is not echoed into URLs", () => {
    const evil = { host: "evil.example/#", "x-forwarded-proto": "javascript" };
    expect(derived(request(evil), peer("127.0.0.1"))).toBe("http://10.0.0.5:8080");
  });

  test("base_url, when set, always wins", () => {
    const fixed = createPublicBaseUrl({
      base_url: "https://hooks.example.com/",
      trusted_proxies: ["127.0.0.1"],
    });
    const forwarded = { host: "a.lan", "x-forwarded-host": "b.lan" };
    expect(fixed(request(forwarded), peer("127.0.0.1"))).toBe("https://hooks.example.com");
  });
});
