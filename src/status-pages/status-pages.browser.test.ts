import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Browser, chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS, sidewaysOverflow, textOf } from "../test-utils/browser-world.ts";
import { type StatusPageWorld, startStatusPageWorld } from "../test-utils/status-page-world.ts";

let world: StatusPageWorld;
let browser: Browser;

beforeAll(async () => {
  world = await startStatusPageWorld();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await world?.stop();
});

describe("the public status page in a browser without JavaScript", () => {
  for (const colorScheme of ["light", "dark"] as const) {
    test(`at 375 px (${colorScheme}): complete, no sideways scroll, no CSP report`, async () => {
      const context = await browser.newContext({
        viewport: { width: 375, height: 800 },
        javaScriptEnabled: false,
        colorScheme,
      });
      try {
        const page = await context.newPage();
        const refused: string[] = [];
        page.on("console", (m) => {
          if (m.text().includes("Content Security Policy")) refused.push(m.text());
        });
        const response = await page.goto(`${world.server.url}/status/${world.slug}`);
        expect(response?.status()).toBe(200);
        await page.getByRole("heading", { name: "Acme status", level: 1 }).waitFor();
        expect(await textOf(page.getByRole("status"))).toBe("Partial outage");
        expect(await page.getByRole("heading", { name: "Current incidents" }).isVisible()).toBe(
          true,
        );
        expect(await page.locator(".item").count()).toBe(4);
        expect(await textOf(page.locator(".s-down"))).toBe("Down");
        // The stylesheet applied: bars are laid out in a row, each visible.
        const bar = await page.locator(".bar").first().boundingBox();
        expect(bar?.height).toBeGreaterThan(10);
        expect(bar?.width).toBeGreaterThan(0);
        expect(await sidewaysOverflow(page)).toBe(0);
        expect(refused).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }
});
