/**
 * The inspector's filter in chromium: it asks the server, so a request far older than the loaded
 * rows is found; method and date narrow it; new captures that match join live.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp } from "../test-utils/accounts.ts";
import { startUiWorld, textOf, type UiWorld } from "../test-utils/browser-world.ts";
import { pollUntil } from "../test-utils/poll.ts";

let world: UiWorld;

beforeAll(async () => {
  world = await startUiWorld();
}, 60_000);

afterAll(async () => {
  await world?.stop();
});

const idOf = async (response: Response) =>
  ((await response.json()) as { request_id: string }).request_id;

describe("server-side search in chromium", () => {
  test("finds a request beyond the loaded rows; method and dates narrow; live matches join", async () => {
    const account = await signUp(world.server);
    const endpoint = await world.createEndpoint(account, "Search hooks");
    const oldest = await idOf(
      await world.capture(endpoint.slug, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: '{"invoice":"INV-0042-ZEBRA"}',
      }),
    );
    for (let i = 0; i < 130; i++) {
      await world.capture(endpoint.slug, { method: "POST", body: `filler ${i}` });
    }
    const page = await world.newPage();
    await world.logIn(page, account);
    await page.goto(`${world.server.url}/endpoints/${endpoint.id}`);
    const rows = page.locator('[role="option"]');
    await pollUntil(async () => (await rows.count()) === 100, { what: "the first 100 rows" });
    expect(await page.locator(`[data-request-id="${oldest}"]`).count()).toBe(0);

    // The text is only in the oldest request, which the page never loaded.
    await page.getByLabel("Filter by text").fill("inv-0042-zebra");
    await page.locator(`[role="option"][data-request-id="${oldest}"]`).waitFor();
    expect(await rows.count()).toBe(1);
    await page.getByText("1 shown of 1 matching").waitFor();
    // The filter is in the address: a reload (or a pasted link) shows the same search.
    await page.waitForURL(/[?&]q=inv-0042-zebra/);
    await page.reload();
    await page.getByText("1 shown of 1 matching").waitFor();
    expect(await page.getByLabel("Filter by text").inputValue()).toBe("inv-0042-zebra");

    // A new capture that matches joins the results live; one that does not, does not.
    const live = await idOf(
      await world.capture(endpoint.slug, { method: "POST", body: "again INV-0042-ZEBRA" }),
    );
    await world.capture(endpoint.slug, { method: "POST", body: "unrelated" });
    await page.locator(`[role="option"][data-request-id="${live}"]`).waitFor();
    await pollUntil(async () => (await rows.count()) === 2, { what: "two matches" });

    // Method: only the PUT; a date range before every capture: nothing.
    await page.getByLabel("Method").selectOption("PUT");
    await pollUntil(async () => (await rows.count()) === 1, { what: "PUT only" });
    expect(await rows.first().getAttribute("data-request-id")).toBe(oldest);
    await page.getByText("Dates").click();
    await page.getByLabel("Until").fill("2020-01-01T00:00:00");
    await page.getByText("0 shown of 0 matching").waitFor();
    await page.getByLabel("Until").fill("");
    await page.getByLabel("Method").selectOption("");

    // Cleared: the full list again, with its count.
    await page.getByLabel("Filter by text").fill("");
    await pollUntil(async () => (await rows.count()) >= 100, { what: "the full list back" });
    expect(await textOf(page.locator(".filter-bar .count"))).toMatch(/of 133$/);
  }, 90_000);

  test("exports the filtered requests and the selected one, as HAR 1.2 and JSON", async () => {
    const account = await signUp(world.server);
    const endpoint = await world.createEndpoint(account, "Export hooks");
    const wanted: string[] = [];
    for (const n of [1, 2, 3]) {
      const sent = await world.capture(endpoint.slug, {
        method: "POST",
        sub: `/orders?n=${n}`,
        headers: { "content-type": "application/json", "x-kind": "order" },
        body: `{"order":${n},"tag":"export-me"}`,
      });
      wanted.push(await idOf(sent));
    }
    await world.capture(endpoint.slug, { method: "POST", body: "something else" });
    const page = await world.newPage();
    await world.logIn(page, account);
    await page.goto(`${world.server.url}/endpoints/${endpoint.id}`);
    await page.getByLabel("Filter by text").fill("export-me");
    await page.getByText("3 shown of 3 matching").waitFor();

    const download = async (button: ReturnType<Page["getByRole"]>) => {
      const [file] = await Promise.all([page.waitForEvent("download"), button.click()]);
      return {
        name: file.suggestedFilename(),
        text: await Bun.file((await file.path()) ?? "").text(),
      };
    };
    const menu = page.locator(".export-menu");
    const har = await download(menu.getByRole("button", { name: "HAR" }));
    expect(har.name).toMatch(/^weir-.*-filtered-.*\.har$/);
    const log = JSON.parse(har.text).log;
    expect(log.version).toBe("1.2");
    expect(log.entries.map((e: { _weir_request_id: string }) => e._weir_request_id)).toEqual(
      wanted,
    );
    expect(log.entries[0].request).toMatchObject({
      method: "POST",
      url: `${world.server.url}/w/${endpoint.slug}/orders?n=1`,
      queryString: [{ name: "n", value: "1" }],
      postData: { mimeType: "application/json", text: '{"order":1,"tag":"export-me"}' },
    });
    expect(log.entries[0].request.headers).toContainEqual({ name: "x-kind", value: "order" });

    // The selected request alone, as the API's JSON.
    await page.locator(`[role="option"][data-request-id="${wanted[1]}"]`).click();
    const one = await download(page.getByRole("button", { name: "Export JSON" }));
    const json = JSON.parse(one.text);
    expect(json.count).toBe(1);
    expect(json.requests[0]).toMatchObject({
      id: wanted[1],
      body: '{"order":2,"tag":"export-me"}',
    });
  }, 90_000);
});
