import { afterEach, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});

async function serverWith(config: { base_url?: string; trusted_proxies?: string[] }) {
  const server = await startTestServer({ config });
  servers.push(server);
  return { server, owner: await signUp(server) };
}

let counter = 0;
async function createdUrls(server: TestServer, headers: Record<string, string>): Promise<string[]> {
  const slug = `hook-${++counter}`;
  const family = await apiCall(server, "POST", "/api/v1/endpoints", {
    headers,
    body: { debug_endpoint: { name: "Hook", slug } },
  });
  const listed = await apiCall(server, "GET", "/api/v1/debug-endpoints", { headers });
  const anonymous = await apiCall(server, "POST", "/api/v1/anonymous-endpoints", { headers });
  expect([family.status, listed.status, anonymous.status]).toEqual([201, 200, 201]);
  const debug = listed.body.debug_endpoints.find((e: { slug: string }) => e.slug === slug);
  return [family.body.data.webhook_url, debug.webhook_url, anonymous.body.data.webhook_url];
}

describe("URLs handed out follow the request unless base_url is set", () => {
  test("base_url unset: the Host the caller used, in every family", async () => {
    const { server, owner } = await serverWith({});
    const urls = await createdUrls(server, { ...owner.headers, host: "homelab.lan:8080" });
    expect(urls[0]).toBe(`http://homelab.lan:8080/w/hook-${counter}`);
    expect(urls[1]).toBe(`http://homelab.lan:8080/debug/hook-${counter}`);
    expect(urls[2]).toMatch(/^http:\/\/homelab\.lan:8080\/w\/[a-z0-9-]+$/);
  });

  test("X-Forwarded-Host/-Proto are believed from a trusted proxy only", async () => {
    const forwarded = { "x-forwarded-host": "hooks.example.com", "x-forwarded-proto": "https" };
    const trusting = await serverWith({ trusted_proxies: ["127.0.0.1"] });
    const viaProxy = await createdUrls(trusting.server, {
      ...trusting.owner.headers,
      ...forwarded,
    });
    expect(viaProxy.every((url) => url.startsWith("https://hooks.example.com/"))).toBe(true);

    const plain = await serverWith({});
    const forged = await createdUrls(plain.server, { ...plain.owner.headers, ...forwarded });
    expect(forged.every((url) => url.startsWith(`${plain.server.url}/`))).toBe(true);
  });

  test("base_url, when set, wins over Host and forwarded headers", async () => {
    const { server, owner } = await serverWith({
      base_url: "https://fixed.example.org",
      trusted_proxies: ["127.0.0.1"],
    });
    const urls = await createdUrls(server, {
      ...owner.headers,
      host: "homelab.lan:8080",
      "x-forwarded-host": "hooks.example.com",
    });
    expect(urls.every((url) => url.startsWith("https://fixed.example.org/"))).toBe(true);
  });
});
