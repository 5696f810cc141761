#!/usr/bin/env bun
/**
 * Regenerates docs/screenshots/*.png: the main screens of the web UI, from a fresh build served
 * by a real server with sample data, in Debian's chromium (the browser tests' setup).
 *
 * Usage: bun scripts/screenshots.ts [--out DIR]
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Cookie, Page } from "playwright-core";
import { startUiWorld, type UiWorld } from "../src/test-utils/browser-world.ts";
import { statusPageScreen } from "./screenshot-status-page.ts";
import { routingScreens } from "./screenshots-routing.ts";
import { statusPagesScreens } from "./screenshots-status-pages.ts";

const root = join(import.meta.dir, "..");
const at = process.argv.indexOf("--out");
const outDir = at > 0 ? (process.argv[at + 1] ?? "") : join(root, "docs/screenshots");
const WAIT = { timeout: 10_000 };

/** Webhooks as real senders send them: JSON, a form post, XML, and a binary upload. */
const SAMPLES: Array<RequestInit & { sub?: string }> = [
  {
    method: "POST",
    sub: "/github",
    headers: {
      "content-type": "application/json",
      "x-github-event": "push",
      "x-github-delivery": "7c1e0a34-2f1b-11ef-9c4e-0242ac120002",
      "x-hub-signature-256":
        "sha256=3f1c9a0e6b2d4c8f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7",
    },
    body: JSON.stringify({
      ref: "refs/heads/main",
      before: "9f8e7d6c",
      after: "1a2b3c4d",
      repository: { id: 4242, full_name: "acme/shop", private: true },
      pusher: { name: "octo", email: "octo@example.com" },
      commits: [
        { id: "1a2b3c4d", message: "Fix checkout rounding", added: [], modified: ["cart.ts"] },
      ],
    }),
  },
  {
    method: "POST",
    sub: "/stripe",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "stripe-signature": "t=1718000000,v1=abc123",
    },
    body: "type=charge.succeeded&amount=1999&currency=eur&customer=cus_Q1w2e3&metadata%5Border%5D=A-17",
  },
  {
    method: "PUT",
    sub: "/erp/orders/17?source=sap",
    headers: { "content-type": "application/xml" },
    body: '<?xml version="1.0"?><order id="17"><customer>ACME GmbH</customer><lines><line sku="B-2" qty="3"/></lines><total currency="EUR">59.97</total></order>',
  },
  {
    method: "POST",
    sub: "/upload",
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3,
    ]),
  },
  {
    method: "POST",
    sub: "/github",
    headers: { "content-type": "application/json", "x-github-event": "issues" },
    body: JSON.stringify({
      action: "opened",
      issue: { number: 17, title: "Checkout shows the wrong total" },
    }),
  },
];

async function shoot(page: Page, name: string): Promise<void> {
  // Finished transitions and no blinking caret: the same pixels on every run.
  await page.evaluate(
    () =>
      (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts
        .ready,
  );
  await page.screenshot({
    path: join(outDir, `${name}.png`),
    caret: "hide",
    animations: "disabled",
  });
  console.log(`  ${name}.png`);
}

async function setupScreens(world: UiWorld): Promise<Page> {
  const page = await world.newPage();
  await page.goto(world.server.url);
  await page.getByRole("heading", { name: "Welcome to Weir" }).waitFor(WAIT);
  await page.getByLabel("Email").fill("ops@acme.example");
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByLabel("Organization name").fill("Acme");
  await shoot(page, "setup");
  await page.getByRole("button", { name: "Create account" }).click();
  // Login lands on the dashboard; the endpoints screen is one link away.
  await page.getByRole("heading", { name: "Dashboard", exact: true }).waitFor(WAIT);
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Endpoints" })
    .click();
  await page.getByRole("heading", { name: "Endpoints", exact: true }).waitFor(WAIT);
  return page;
}

async function createEndpoints(page: Page): Promise<void> {
  for (const [name, slug] of [
    ["Shop webhooks", "shop"],
    ["Billing (staging)", "billing-staging"],
    ["Legacy ERP", "erp"],
  ] as const) {
    await page.getByLabel("Name", { exact: true }).fill(name);
    await page.getByLabel(/^Slug/).fill(slug);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await page.locator(".endpoint-card", { hasText: name }).waitFor(WAIT);
  }
  await page
    .locator(".endpoint-card", { hasText: "Legacy ERP" })
    .getByRole("button", { name: "Pause" })
    .click();
  await page
    .locator(".endpoint-card", { hasText: "Legacy ERP" })
    .locator(".badge-paused")
    .waitFor(WAIT);
}

async function sendSamples(world: UiWorld, slug: string): Promise<void> {
  for (const { sub, ...init } of SAMPLES) {
    const response = await fetch(`${world.server.url}/w/${slug}${sub ?? ""}`, init);
    if (!response.ok) throw new Error(`capture answered ${response.status}`);
  }
}

async function inspectorScreens(world: UiWorld, page: Page): Promise<string> {
  await page
    .locator(".endpoint-card", { hasText: "Shop webhooks" })
    .getByRole("link", { name: "Open inspector" })
    .click();
  await page.locator('[data-live-state="live"]').waitFor(WAIT);
  await sendSamples(world, "shop");
  await page
    .locator('[role="option"]')
    .nth(SAMPLES.length - 1)
    .waitFor(WAIT);
  await page.locator('[role="option"]').last().click();
  await page.locator('pre[data-body-view="json"]').waitFor(WAIT);
  // A reload keeps the selection (it is in the address) and drops the "new" highlights.
  await page.waitForURL(/\?request=/, WAIT);
  await page.reload();
  await page.locator('pre[data-body-view="json"]').waitFor(WAIT);
  await page.locator('[data-live-state="live"]').waitFor(WAIT);
  await shoot(page, "inspector");
  await page.locator('[role="option"]', { hasText: "/stripe" }).click();
  await page.locator('table[aria-label="Form fields"]').waitFor(WAIT);
  await shoot(page, "inspector-form");
  // The filter searches the whole history on the server; the list shows what matched.
  await page.getByLabel("Filter by text").fill("checkout");
  await page.getByText(/shown of 2 matching/).waitFor(WAIT);
  await page.locator('[role="option"]', { hasText: "/github" }).first().click();
  const json = page.locator('pre[data-body-view="json"]');
  await json.waitFor(WAIT);
  // The highlighted JSON body in view, under the headers.
  await json.scrollIntoViewIfNeeded();
  await shoot(page, "inspector-search");
  await page.getByLabel("Filter by text").fill("");
  await page.goto(`${world.server.url}/endpoints`);
  await page.locator(".endpoint-card").nth(2).waitFor(WAIT);
  await shoot(page, "endpoints");
  return page.url();
}

async function settingsScreen(page: Page): Promise<void> {
  await page.getByRole("link", { name: "Settings", exact: true }).first().click();
  await page.getByLabel("Key name").fill("CI deploys");
  await page.getByRole("button", { name: "Create key" }).click();
  await page.getByTestId("new-api-key").waitFor(WAIT);
  await shoot(page, "settings");
}

async function phoneAndDarkScreens(world: UiWorld, cookies: Cookie[]): Promise<void> {
  for (const [name, options] of [
    ["inspector-phone", { width: 375, height: 740 }],
    ["inspector-dark", { colorScheme: "dark" as const }],
  ] as const) {
    const page = await world.newPage(options);
    // The same login as the main page: its session cookie, as another browser profile would hold it.
    await page.context().addCookies(cookies);
    await page.goto(`${world.server.url}/endpoints`);
    await page
      .locator(".endpoint-card", { hasText: "Shop webhooks" })
      .getByRole("link", { name: "Open inspector" })
      .click();
    await page
      .locator('[role="option"]')
      .nth(SAMPLES.length - 1)
      .waitFor(WAIT);
    await page.locator('[data-live-state="live"]').waitFor(WAIT);
    await page.locator('[role="option"]', { hasText: "/erp" }).click();
    await page.locator('pre[data-body-view="xml"]').waitFor(WAIT);
    await shoot(page, name);
  }
}

/** A call of the logged-in page to its own API (the UI's session cookie and header). */
async function apiCall(page: Page, method: string, path: string, body?: unknown) {
  const answer = await page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(path, {
        method,
        headers: { "content-type": "application/json", "x-weir-ui": "1" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, json: await response.json().catch(() => null) };
    },
    { method, path, body },
  );
  if (answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}`);
  return answer.json as { data: { id: string } };
}

/** The actions screen of "Shop webhooks", with a try-out on its last capture. */
async function actionsScreen(world: UiWorld, page: Page): Promise<void> {
  await page.goto(`${world.server.url}/endpoints`);
  const card = page.locator(".endpoint-card", { hasText: "Shop webhooks" });
  await card.getByRole("link", { name: "Open inspector" }).click();
  const id = new URL(page.url()).pathname.split("/")[2] ?? "";
  const actions = `/api/v1/endpoints/${id}/actions`;
  await apiCall(page, "POST", actions, {
    type: "condition",
    name: "Only pushes",
    config: { "headers.x-github-event": { $eq: "push" } },
  });
  await apiCall(page, "POST", actions, {
    type: "extract_json",
    name: "Repository and commit",
    config: {
      source: "body",
      extractions: [
        { path: "repository.full_name", variable: "repo" },
        { path: "commits[0].id", variable: "sha" },
      ],
    },
  });
  await apiCall(page, "POST", actions, {
    type: "http_request",
    name: "Tell the team",
    config: {
      url: "http://chat.lan:8065/hooks/abc",
      method: "POST",
      body: { text: "$request.body.pusher.name$ pushed $sha$ to $repo$" },
    },
  });
  await page.goto(`${world.server.url}/endpoints/${id}/actions`);
  await page.getByRole("heading", { name: "Actions", exact: true }).waitFor(WAIT);
  await page.getByRole("button", { name: "Try the actions" }).click();
  await page.getByRole("list", { name: "Try-out results" }).waitFor(WAIT);
  // The chain at the top of the screen; the try-out's results are below it.
  await page.evaluate(() =>
    (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
  );
  await shoot(page, "actions");
}

/** Three monitors (one up, one down, one waiting for its first push), the list and one page. */
async function monitorScreens(world: UiWorld, page: Page): Promise<void> {
  const base = "/api/v1/uptime-monitors";
  const health = await apiCall(page, "POST", base, {
    name: "Weir health",
    type: "http",
    url: `${world.server.url}/healthz`,
    interval_seconds: 600,
  });
  await apiCall(page, "POST", base, {
    name: "Ledger database",
    type: "tcp",
    url: "tcp://127.0.0.1:9",
    interval_seconds: 600,
    timeout_seconds: 2,
  });
  await apiCall(page, "POST", base, {
    name: "Nightly backup",
    type: "push",
    interval_seconds: 86400,
  });
  for (let i = 0; i < 3; i++) await apiCall(page, "POST", `${base}/${health.data.id}/check`);
  await page.goto(`${world.server.url}/monitors`);
  await page.getByRole("row", { name: /Ledger database.*Down/ }).waitFor(WAIT);
  await shoot(page, "monitors");
  await page.getByRole("link", { name: "Weir health" }).click();
  await page.getByRole("img", { name: /Response time, 24 h/ }).waitFor(WAIT);
  await shoot(page, "monitor");
  await page.goto(world.server.url);
  await page.getByRole("heading", { name: "Dashboard", exact: true }).waitFor(WAIT);
  await page.getByRole("region", { name: "Monitors down" }).getByText(/Down/).waitFor(WAIT);
  await shoot(page, "dashboard");
}

async function anonymousScreen(world: UiWorld): Promise<void> {
  const page = await world.newPage();
  await page.goto(`${world.server.url}/anonymous`);
  await page.getByRole("button", { name: "Get a URL now" }).click();
  const url = (await page.getByTestId("anonymous-url").textContent()) ?? "";
  const [first] = SAMPLES;
  const response = await fetch(`${url}${first?.sub ?? ""}`, first);
  if (!response.ok) throw new Error(`anonymous capture answered ${response.status}`);
  await page.locator('[role="option"]').first().waitFor(WAIT);
  await page.locator('pre[data-body-view="json"]').waitFor(WAIT);
  await shoot(page, "anonymous");
}

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const world = await startUiWorld();
  try {
    console.log(`screenshots: writing to ${outDir}`);
    const page = await setupScreens(world);
    await createEndpoints(page);
    await inspectorScreens(world, page);
    await settingsScreen(page);
    await routingScreens(world, page, shoot);
    await actionsScreen(world, page);
    await monitorScreens(world, page);
    await statusPagesScreens(world, page, shoot);
    await phoneAndDarkScreens(world, await page.context().cookies());
    const login = await world.newPage();
    await login.goto(`${world.server.url}/login`);
    await login.getByRole("heading", { name: "Log in to Weir" }).waitFor(WAIT);
    await shoot(login, "login");
    await anonymousScreen(world);
  } finally {
    await world.stop();
  }
  await statusPageScreen(outDir);
}

await main();
