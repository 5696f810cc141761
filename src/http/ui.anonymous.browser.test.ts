/**
 * The anonymous endpoint page in chromium: reachable without an account (from the login page),
 * "Get a URL now", a capture to that URL shows up, and the page keeps its URL across a reload.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp } from "../test-utils/accounts.ts";
import { startUiWorld, textOf, type UiWorld } from "../test-utils/browser-world.ts";

let world: UiWorld;

beforeAll(async () => {
  world = await startUiWorld();
  // A user exists, so the UI would ask for a login everywhere else.
  await signUp(world.server);
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

describe("anonymous endpoint page in chromium", () => {
  test("get a URL now without an account; captures appear; the URL survives a reload", async () => {
    const page = await world.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${world.server.url}/login`);
    await page.getByRole("link", { name: "Get a temporary URL now" }).click();
    await page.getByRole("heading", { name: "A webhook URL, right now" }).waitFor();
    await page.getByRole("button", { name: "Get a URL now" }).click();
    const url = await textOf(page.getByTestId("anonymous-url"));
    expect(url).toMatch(new RegExp(`^${world.server.url}/w/[a-z0-9-]+$`));
    await page.getByText("Waiting for the first request…").waitFor();

    const sent = await fetch(`${url}/stripe?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hello": "anonymous" },
      body: '{"event":"anon-test"}',
    });
    expect(sent.status).toBe(200);
    const { request_id: id } = (await sent.json()) as { request_id: string };
    const row = page.locator(`[role="option"][data-request-id="${id}"]`);
    await row.waitFor({ timeout: 15_000 });
    const detail = page.locator(`article.request-detail[data-request-id="${id}"]`);
    await detail.locator('pre[data-body-view="json"]').waitFor();
    expect(await textOf(detail.getByRole("table", { name: "Headers" }))).toContain(
      "x-hello\tanonymous",
    );
    expect(await textOf(detail.locator(".detail-path"))).toBe("/stripe?x=1");

    await page.reload();
    expect(await textOf(page.getByTestId("anonymous-url"))).toBe(url);
    await row.waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  test("with anonymous endpoints off, the login page offers none and the page says so", async () => {
    const off = await startUiWorld({ config: { anonymous_endpoints: "off" } });
    try {
      await signUp(off.server);
      const page = await off.newPage();
      await page.goto(`${off.server.url}/login`);
      await page.getByRole("heading", { name: "Log in to Weir" }).waitFor();
      expect(await page.getByRole("link", { name: "Get a temporary URL now" }).count()).toBe(0);
      await page.goto(`${off.server.url}/anonymous`);
      await page.getByRole("button", { name: "Get a URL now" }).click();
      await page.getByText("Temporary URLs are turned off on this server.").waitFor();
    } finally {
      await off.stop();
    }
  }, 60_000);
});
