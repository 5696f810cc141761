import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "../test-utils/temp-dir.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const INDEX = '<!doctype html><html><body><div id="app"></div></body></html>';
const dir = makeTempDir("weir-ui-routes-");
const dist = join(dir.path, "dist");
let server: TestServer;

beforeAll(async () => {
  mkdirSync(join(dist, "assets"), { recursive: true });
  writeFileSync(join(dist, "index.html"), INDEX);
  writeFileSync(join(dist, "assets/index-abc123.js"), "console.log(1)");
  writeFileSync(join(dist, "favicon.svg"), "<svg/>");
  // Next to the UI directory: must never be reachable through it.
  writeFileSync(join(dir.path, "secret.txt"), "outside");
  server = await startTestServer({ config: { ui_dir: dist } });
});

afterAll(async () => {
  await server?.stop();
  dir.remove();
});

describe("web UI served from WEIR_UI_DIR", () => {
  test.each([
    ["/", 200, "no-cache", INDEX],
    ["/index.html", 200, "no-cache", INDEX],
    ["/assets/index-abc123.js", 200, "public, max-age=31536000, immutable", "console.log(1)"],
    ["/favicon.svg", 200, "no-cache", "<svg/>"],
    ["/endpoints/0190-abc", 200, "no-cache", INDEX],
    ["/settings", 200, "no-cache", INDEX],
  ])("GET %s → %d, cache-control %s", async (path, status, cache, body) => {
    const response = await server.request(path);
    expect(response.status).toBe(status);
    expect(response.headers.get("cache-control")).toBe(cache);
    expect(await response.text()).toBe(body);
  });

  test.each([
    "/api/v1/not-a-route",
    "/w/no-such-slug",
    "/socket/other",
    "/healthz/x",
    "/assets/missing-123.js",
    "/..%2fsecret.txt",
    "/assets/..%2f..%2fsecret.txt",
    "/%2e%2e/secret.txt",
  ])("GET %s is a JSON 404, never the UI or a file outside the directory", async (path) => {
    const response = await server.request(path);
    const text = await response.text();
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(text).not.toContain("outside");
    expect(text).not.toContain('id="app"');
  });
});

describe("the UI's security headers", () => {
  test.each(["/", "/endpoints/0190-abc", "/assets/index-abc123.js"])(
    "GET %s carries the CSP, frame and referrer policies",
    async (path) => {
      const response = await server.request(path);
      expect(response.status).toBe(200);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    },
  );
});
