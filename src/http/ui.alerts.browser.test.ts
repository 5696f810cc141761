/**
 * Alert rules in chromium against a real server: create (a 422 at the field first), the webhook
 * channel's secret shown once, a test alert whose link opens the UI, enable/disable, edit, delete.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { watchPage } from "../test-utils/browser-checks.ts";
import { sidewaysOverflow, startUiWorld, type UiWorld } from "../test-utils/browser-world.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";

let world: UiWorld;
let owner: TestAccount;
const sink = startHttpSink();

beforeAll(async () => {
  world = await startUiWorld();
  owner = await signUp(world.server);
}, 60_000);

afterAll(async () => {
  await world?.stop();
  await sink.stop();
});

const watch = (page: Page) => watchPage(world, page);

const ruleNamed = async (name: string) =>
  (
    (await callAs(world.server, owner, "GET", "/api/v1/alert-rules")).body.data as {
      id: string;
      name: string;
      enabled: boolean;
    }[]
  ).find((r) => r.name === name);

describe("alert rules in chromium", () => {
  test("create (422 at the field first), test alert with a UI link, disable, edit, delete", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    await world.logIn(page, owner);
    await page.goto(`${world.server.url}/alert-rules`);
    await page.getByRole("heading", { name: "Alert rules", exact: true }).waitFor();
    await page.getByText("No alert rules yet").waitFor();

    await page.getByLabel("Rule name").fill("Billing down");
    await page.getByLabel("When").selectOption("occurrence_threshold");
    await page.getByLabel("Failures").fill("0");
    await page.getByLabel("Send to").selectOption("webhook");
    await page.getByLabel("Webhook URL").fill(`${sink.url}/alerts`);
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.locator('input[name="condition.value"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Failures").fill("10");
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.getByText(/Signing secret of the webhook channel \(shown once\): whsec_/).waitFor();
    const row = page.getByRole("row", { name: /Billing down.*10.*Webhook/ });
    await row.waitFor();

    await row.getByRole("link", { name: "Billing down" }).click();
    await page.getByRole("heading", { name: "Billing down", exact: true }).waitFor();
    await page.getByRole("button", { name: "Send a test alert" }).click();
    await page.getByRole("status").getByText("Test alert queued").waitFor();
    const alert = await pollUntil(() => sink.requests.find((r) => r.path === "/alerts"), {
      what: "the test alert",
    });
    const document = JSON.parse(new TextDecoder().decode(alert.body)) as { link: string };
    expect(new URL(document.link).pathname).toMatch(/^\/issues\/[0-9a-f-]+$/);

    await page.getByRole("button", { name: "Enabled: Billing down" }).click();
    await page.getByRole("status").getByText("Alert rule “Billing down” disabled").waitFor();
    expect((await ruleNamed("Billing down"))?.enabled).toBe(false);

    await page.getByLabel("Rule name").fill("Billing is down");
    await page.getByRole("button", { name: "Save rule" }).click();
    await page.getByRole("heading", { name: "Billing is down", exact: true }).waitFor();

    await page.getByRole("button", { name: "Delete rule" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete rule" }).click();
    await page.getByRole("heading", { name: "Alert rules", exact: true }).waitFor();
    await page.getByText("No alert rules yet").waitFor();
    expect(await ruleNamed("Billing is down")).toBeUndefined();
    await clean();
  });

  test("a member reads rules without controls, on a small screen in the dark", async () => {
    const made = await callAs(world.server, owner, "POST", "/api/v1/alert-rules", {
      name: "Ops chat",
      condition: { type: "issue_created" },
      channel: { type: "slack", webhook_url: "{{SLACK_URL}}" },
    });
    expect(made.status).toBe(201);
    const member = await owner.addMember("member");
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await world.logIn(page, member);
    await page.goto(`${world.server.url}/alert-rules`);
    await page.getByRole("row", { name: /Ops chat.*Slack.*On/ }).waitFor();
    expect(await page.getByRole("button", { name: /Create rule|Enabled/ }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });
});
