#!/usr/bin/env bun
/**
 * docs/screenshots/status-page.png: the sample public status page at 375 px, JavaScript off, as
 * a phone shows it. Run by scripts/screenshots.ts, or alone: bun scripts/screenshot-status-page.ts [--out DIR]
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM, CHROMIUM_ARGS } from "../src/test-utils/browser-world.ts";
import { startStatusPageWorld } from "../src/test-utils/status-page-world.ts";

export async function statusPageScreen(outDir: string): Promise<void> {
  const world = await startStatusPageWorld();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const context = await browser.newContext({
      viewport: { width: 375, height: 900 },
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    await page.goto(`${world.server.url}/status/${world.slug}`);
    await page.getByRole("heading", { name: "Acme status", level: 1 }).waitFor();
    await page.screenshot({ path: join(outDir, "status-page.png"), fullPage: true });
    console.log("  status-page.png");
  } finally {
    await browser.close();
    await world.stop();
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf("--out");
  const outDir =
    at > 0 ? (process.argv[at + 1] ?? "") : join(import.meta.dir, "..", "docs/screenshots");
  mkdirSync(outDir, { recursive: true });
  await statusPageScreen(outDir);
}
