/**
 * The request detail in chromium against a real server and real captures: headers before the
 * body, a large body folded, JSON highlighted and foldable, relative times with the full date on
 * hover.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { startUiWorld, textOf, type UiWorld } from "../test-utils/browser-world.ts";

let world: UiWorld;
let account: TestAccount;

beforeAll(async () => {
  world = await startUiWorld();
  account = await signUp(world.server);
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

async function openInspector(page: Page, name: string) {
  const endpoint = await world.createEndpoint(account, name);
  await world.logIn(page, account);
  await page.goto(`${world.server.url}/endpoints/${endpoint.id}`);
  await page.getByRole("heading", { name }).waitFor();
  await page.locator('[data-live-state="live"]').waitFor();
  return endpoint;
}

async function captureJson(slug: string, body: unknown): Promise<string> {
  const sent = await world.capture(slug, {
    method: "POST",
    headers: { "content-type": "application/json", "x-signature": "sha256=abc" },
    body: JSON.stringify(body),
  });
  expect(sent.status).toBe(200);
  return ((await sent.json()) as { request_id: string }).request_id;
}

describe("request detail in chromium", () => {
  test("headers come before the body; JSON is highlighted and folds; times are relative with the full date on hover", async () => {
    const page = await world.newPage();
    // The UI is served under a strict CSP: anything inline it tried would be refused and logged.
    const refused: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    const endpoint = await openInspector(page, "Detail hooks");
    const id = await captureJson(endpoint.slug, { order: "A-17", items: [1, 2], paid: true });
    const row = page.locator(`[role="option"][data-request-id="${id}"]`);
    await row.click();
    const detail = page.locator(`article.request-detail[data-request-id="${id}"]`);
    const json = detail.locator('pre[data-body-view="json"]');
    await json.waitFor();

    const order = await detail
      .locator("h3")
      .evaluateAll((headings) => headings.map((h) => (h.textContent ?? "").split(" ")[0]));
    expect(order.indexOf("Headers")).toBeGreaterThanOrEqual(0);
    expect(order.indexOf("Headers")).toBeLessThan(order.indexOf("Body"));

    // Highlighted tokens, and the text is still exactly the pretty JSON.
    expect(await textOf(json.locator(".json-key").first())).toBe('"order"');
    expect(await textOf(json.locator(".json-string").first())).toBe('"A-17"');
    expect(await textOf(json.locator(".json-number").first())).toBe("1");
    expect(await textOf(json.locator(".json-literal").first())).toBe("true");
    expect(await textOf(json)).toBe(
      JSON.stringify({ order: "A-17", items: [1, 2], paid: true }, null, 2),
    );

    // Fold the array, then unfold it.
    await json.getByRole("button", { name: "Fold line 3" }).click();
    expect(await textOf(json)).toContain('"items": [ … 2 entries ],');
    expect(await textOf(json)).not.toContain("    1,");
    await json.getByRole("button", { name: "Unfold line 3" }).click();
    expect(await textOf(json)).toContain("    1,");

    // Relative time in the list, the full date (year, milliseconds, offset) on hover.
    const time = row.locator("time");
    expect(await textOf(time)).toMatch(/just now|\d+ s ago/);
    const year = new Date().getFullYear();
    expect(await time.getAttribute("title")).toMatch(
      new RegExp(`^${year}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} UTC[+-]\\d\\d:\\d\\d$`),
    );
    expect(await textOf(detail.locator(".meta"))).toMatch(new RegExp(`${year}-.* UTC.*ago|now`));
    expect(refused).toEqual([]);
  }, 60_000);

  test("a large body starts folded and unfolds on request", async () => {
    const page = await world.newPage();
    const endpoint = await openInspector(page, "Big hooks");
    const items = Array.from({ length: 600 }, (_, i) => ({ n: i, name: `item ${i}` }));
    const id = await captureJson(endpoint.slug, { items });
    await page.locator(`[role="option"][data-request-id="${id}"]`).click();
    const json = page.locator('pre[data-body-view="json"]');
    await json.waitFor();
    expect(await json.getAttribute("data-folded")).toBe("true");
    // Deep blocks start folded in a long document; the view stops at its first lines.
    expect(await textOf(json)).toContain("{ … 2 entries }");
    expect(await textOf(json)).not.toContain('"item 599"');
    const more = page.getByRole("button", { name: /Show the whole body \(/ });
    await more.click();
    expect(await json.getAttribute("data-folded")).toBe("false");
    // Every item is there, folded; unfolding the last one shows it.
    expect((await textOf(json)).match(/\{ … 2 entries \}/g)?.length).toBe(600);
    const last = json.getByRole("button", { name: /^Unfold/ }).last();
    await last.click();
    expect(await textOf(json)).toContain('"item 599"');
  }, 60_000);
});
