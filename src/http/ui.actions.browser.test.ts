/**
 * An endpoint's actions in chromium against a real server: add per type (a 422 at the field
 * first), template hints from earlier actions, reorder, disable, try on a capture, edit, delete;
 * the inspector's results of a capture's run; a member's read-only view on a small dark screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { openScreen, watchPage } from "../test-utils/browser-checks.ts";
import { sidewaysOverflow, startUiWorld, type UiWorld } from "../test-utils/browser-world.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";

let world: UiWorld;
let owner: TestAccount;
const sink = startHttpSink();

beforeAll(async () => {
  world = await startUiWorld();
  owner = await signUp(world.server, { plan: "team" });
}, 60_000);

afterAll(async () => {
  await world?.stop();
  await sink.stop();
});

const watch = (page: Page) => watchPage(world, page);

interface ActionRow {
  id: string;
  name: string;
  enabled: boolean;
}
const actionsOf = async (endpointId: string) =>
  (await callAs(world.server, owner, "GET", `/api/v1/endpoints/${endpointId}/actions`)).body
    .data as ActionRow[];

const sendOrder = (slug: string, amount: number) =>
  world.capture(slug, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ kind: "order", amount }),
  });

async function addAction(page: Page, type: string, name: string, fill: () => Promise<void>) {
  await page.getByLabel("Type").selectOption(type);
  await page.getByLabel("Action name").fill(name);
  await fill();
  await page.getByRole("button", { name: "Add action" }).click();
}

describe("actions in chromium", () => {
  test("add per type (422 at the field first), hints, reorder, disable, try, edit, delete", async () => {
    const endpoint = await world.createEndpoint(owner, "Shop orders");
    expect((await sendOrder(endpoint.slug, 1500)).status).toBe(200);
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, owner, `/endpoints/${endpoint.id}/settings`, "Endpoint settings");
    await page.getByRole("link", { name: "Actions", exact: true }).click();
    await page.getByRole("heading", { name: "Actions", exact: true }).waitFor();
    await page.getByText("No actions yet").waitFor();

    await addAction(page, "condition", "Only orders", () =>
      page.getByLabel("Filter (JSON)").fill('{"body.kind": {"$eq": "order"}}'),
    );
    await page.getByRole("status").getByText("Action “Only orders” added").waitFor();
    await addAction(page, "extract_json", "Amount", () =>
      page.getByLabel("Extractions").fill("amount = amount"),
    );
    const list = page.getByRole("list", { name: "Actions, in the order they run" });
    await list.getByText("Amount").waitFor();

    // The next action may read the variable the extraction sets.
    await page.getByText(/Templates available here/).click();
    await page.locator(".template-hints").getByText("$amount$", { exact: true }).waitFor();

    await addAction(page, "store_variable", "Keep amount", async () => {
      await page.getByLabel("Variable name").fill("last amount");
      await page.getByLabel("Value").fill("$amount$");
    });
    await page.locator('input[name="config.name"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Variable name").fill("last_amount");
    await page.getByRole("button", { name: "Add action" }).click();
    await list.getByText("Keep amount").waitFor();

    await page.getByRole("button", { name: "Move up: Keep amount" }).click();
    await pollUntil(
      async () => {
        const names = (await actionsOf(endpoint.id)).map((a) => a.name);
        return names.join() === "Only orders,Keep amount,Amount" ? names : undefined;
      },
      { what: "the new order" },
    );
    await page.getByRole("button", { name: "Move down: Keep amount" }).click();
    await pollUntil(
      async () =>
        (await actionsOf(endpoint.id)).map((a) => a.name).join() ===
          "Only orders,Amount,Keep amount" || undefined,
      { what: "the order back" },
    );

    await page.getByRole("button", { name: "Try the actions" }).click();
    const results = page.getByRole("list", { name: "Try-out results" });
    await results.getByText("Keep amount").waitFor();
    expect(await results.getByText("OK").count()).toBe(3);
    await results.getByText(/"persisted": false/).waitFor();

    await page.getByRole("button", { name: "Enabled: Amount" }).click();
    await page.getByRole("status").getByText("Action “Amount” disabled").waitFor();
    expect((await actionsOf(endpoint.id)).find((a) => a.name === "Amount")?.enabled).toBe(false);

    await page.getByRole("button", { name: "Edit: Only orders" }).click();
    await page
      .getByRole("form", { name: "Save action" })
      .getByLabel("Action name")
      .fill("Orders only");
    await page.getByRole("button", { name: "Save action" }).click();
    await list.getByText("Orders only").waitFor();

    await page.getByRole("button", { name: "Delete: Keep amount" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete action" }).click();
    await page.getByRole("status").getByText("Action “Keep amount” deleted").waitFor();
    // The confirm dialog sits inside the list while it closes: wait for it, then for the row.
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await list.getByText("Keep amount", { exact: true }).waitFor({ state: "detached" });
    expect((await actionsOf(endpoint.id)).map((a) => a.name)).toEqual(["Orders only", "Amount"]);
    await clean();
  });

  test("the inspector shows the action results of a capture", async () => {
    const endpoint = await world.createEndpoint(owner, "Counted");
    const made = await callAs(
      world.server,
      owner,
      "POST",
      `/api/v1/endpoints/${endpoint.id}/actions`,
      { type: "condition", name: "Large orders", config: { "body.amount": { $gt: 1000 } } },
    );
    expect(made.status).toBe(201);
    const page = await world.newPage();
    const clean = watch(page);
    await world.logIn(page, owner);
    await page.goto(`${world.server.url}/endpoints/${endpoint.id}`);
    await page.getByText("Live", { exact: true }).waitFor();
    expect((await sendOrder(endpoint.slug, 50)).status).toBe(200);
    await page.locator('[role="option"]').first().click();
    const results = page.getByRole("list", { name: "Action results" });
    await results.getByText("Large orders", { exact: true }).waitFor();
    await results.getByText(/"matched": false/).waitFor();
    await clean();
  });

  test("a run that ends after the request is opened is added live", async () => {
    const endpoint = await world.createEndpoint(owner, "Slow chain");
    // The chain's request goes unanswered until the run's 2 s budget ends it: the request is open
    // in the inspector well before its run is recorded.
    sink.answer(() => ({ status: 202, delayMs: 10_000, body: "noted" }));
    const made = await callAs(
      world.server,
      owner,
      "POST",
      `/api/v1/endpoints/${endpoint.id}/actions`,
      { type: "http_request", name: "Tell", config: { url: `${sink.url}/slow`, method: "POST" } },
    );
    expect(made.status).toBe(201);
    const page = await world.newPage();
    const clean = watch(page);
    await world.logIn(page, owner);
    await page.goto(`${world.server.url}/endpoints/${endpoint.id}`);
    await page.locator('[data-live-state="live"]').waitFor();
    expect((await sendOrder(endpoint.slug, 5)).status).toBe(200);
    await page.locator('[role="option"]').first().click();
    await page.locator(".request-detail").waitFor();
    const results = page.getByRole("list", { name: "Action results" });
    expect(await results.count()).toBe(0);
    await results.getByText(/timeout: no answer within/).waitFor();
    await clean();
  });

  test("a member reads the chain without controls, on a small screen in the dark", async () => {
    const endpoint = await world.createEndpoint(owner, "Read only");
    await callAs(world.server, owner, "POST", `/api/v1/endpoints/${endpoint.id}/actions`, {
      type: "run_script",
      name: "Count",
      config: { code: "variables.count = 1;" },
    });
    const member = await owner.addMember("member");
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await openScreen(world, page, member, `/endpoints/${endpoint.id}/actions`, "Actions");
    await page
      .getByRole("list", { name: "Actions, in the order they run" })
      .getByText("Count")
      .waitFor();
    expect(await page.getByRole("button", { name: /Add action|Delete|Move/ }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });

  test("an admin's chain, its forms and a try-out fit a phone without sideways scroll", async () => {
    const endpoint = await world.createEndpoint(owner, "Phone chain");
    expect((await sendOrder(endpoint.slug, 10)).status).toBe(200);
    await callAs(world.server, owner, "POST", `/api/v1/endpoints/${endpoint.id}/actions`, {
      type: "http_request",
      name: "A rather long action name that has to wrap on a phone",
      config: { url: "http://chat.lan:8065/hooks/abc", method: "POST", body: { text: "$repo$" } },
    });
    const page = await world.newPage({ width: 375, height: 740 });
    const clean = watch(page);
    await openScreen(world, page, owner, `/endpoints/${endpoint.id}/actions`, "Actions");
    await page.getByLabel("Type").selectOption("http_request");
    await page.getByRole("button", { name: /^Edit: A rather long/ }).click();
    await page.getByRole("button", { name: "Try the actions" }).click();
    await page
      .getByRole("list", { name: "Try-out results" })
      .getByText(/would_send/)
      .waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });
});
