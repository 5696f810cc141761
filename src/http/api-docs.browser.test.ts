import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, textOf } from "../test-utils/browser-world.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test("/api/docs renders each operation's credentials, fields and examples, offline", async () => {
  const page = await browser.newPage();
  const outside: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(server.url)) outside.push(request.url());
  });
  await page.goto(`${server.url}/api/docs`);
  const create = page.locator("details", { hasText: "/api/v1/endpoints" }).filter({
    has: page.locator(".m-post"),
  });
  await create.first().waitFor();
  const login = page.locator("details", { hasText: "/api/v1/auth/login" });
  await login.locator("summary").click();
  expect(await textOf(login)).toContain("Credentials: public: no credentials");
  expect(await textOf(login)).toContain('"email": "ops@example.com"');
  const endpoints = page.locator("details#postApiV1Endpoints");
  await endpoints.locator("summary").click();
  const text = await textOf(endpoints);
  expect(text).toContain(
    "Credentials: Authorization: Bearer (API key or login token) or X-API-Key",
  );
  expect(text).toContain("debug_endpoint.name");
  expect(text).toContain('"slug": "github-hooks"');
  expect(text).toMatch(/^401 — /m);
  expect(text).toContain('"status": "active"');
  expect(await page.locator("h2#tag-realtime").count()).toBe(1);
  expect(outside).toEqual([]);
}, 30_000);

test("/api/docs shows the gateway's body fields with their bounds, typed list filters and the ingest sub-path", async () => {
  const page = await browser.newPage();
  await page.goto(`${server.url}/api/docs`);
  const create = page.locator("details#postApiV1Bridges");
  await create.waitFor();
  await create.locator("summary").click();
  const body = await textOf(create);
  expect(body).toMatch(/destinations\[\]\.max_retries\s*integer \| null\s*optional/);
  expect(body).toContain("destinations[].path_forwarding");
  expect(body).toContain("(0–15; default 15)");
  expect(body).toContain('"name": "Orders to the API"');
  const events = page.locator("details#getApiV1Events");
  await events.locator("summary").click();
  expect(await textOf(events)).toMatch(
    /status\s*query\s*optional\s*"pending" \| "delivered" \| "failed" \| "filtered" \| "paused"/,
  );
  expect(await textOf(events)).toMatch(/page_size\s*query\s*optional\s*integer/);
  const ingest = page.locator("details#postAllInBySlugSubPath");
  await ingest.locator("summary").click();
  expect(await textOf(ingest)).toContain("Credentials: public: no credentials");
  expect(await textOf(ingest)).toMatch(/path\s*path\s*required\s*string/);
}, 30_000);
