/**
 * What every screen's browser test checks at its end, and how it opens a screen: test-only (it
 * asserts with bun:test), apart from browser-world.ts, which the screenshot script uses too.
 */
import { expect } from "bun:test";
import type { Page } from "playwright-core";
import type { TestAccount } from "./accounts.ts";
import { type UiWorld, unlabelledControls } from "./browser-world.ts";

/**
 * Starts watching `page` for script errors; the returned check asserts none happened, no CSP
 * violation was reported and every control has a label.
 */
export function watchPage(world: UiWorld, page: Page): () => Promise<void> {
  const errors: Error[] = [];
  page.on("pageerror", (e) => errors.push(e));
  return async () => {
    expect(errors).toEqual([]);
    expect(world.cspViolations(page)).toEqual([]);
    expect(await unlabelledControls(page)).toEqual([]);
  };
}

/** Logs `account` in, goes to `path` and waits for the screen's heading. */
export async function openScreen(
  world: UiWorld,
  page: Page,
  account: TestAccount,
  path: string,
  heading: string,
): Promise<void> {
  await world.logIn(page, account);
  await page.goto(`${world.server.url}${path}`);
  await page.getByRole("heading", { name: heading, exact: true }).waitFor();
}
