/**
 * The dashboard in chromium against a real server: the first page after login lists a monitor
 * that is down, an open issue, a failed event and an endpoint that received today, each linking
 * to its page; a panel whose call fails says so with Retry while the others show; a small dark
 * screen does not scroll sideways.
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
let seeded: { eventId: string; issueId: string; monitorId: string };

beforeAll(async () => {
  world = await startUiWorld({ config: { retry_base_ms: 60_000, retry_cap_ms: 60_000 } });
  owner = await signUp(world.server, { plan: "team" });
  sink.answer(() => ({ status: 503, body: "down for maintenance" }));
  seeded = await seed();
}, 60_000);

afterAll(async () => {
  await world?.stop();
  await sink.stop();
});

/** A failed event with its open issue, a monitor that is down and an endpoint that received. */
async function seed() {
  const made = await callAs(world.server, owner, "POST", "/api/v1/bridges", {
    name: "Payments",
    source: { name: "Shop", type: "webhook" },
    destinations: [{ name: "Ledger", url: `${sink.url}/ledger`, max_retries: 0 }],
  });
  expect(made.status).toBe(201);
  const bridge = made.body.data as { id: string; source_id: string };
  const sent = await world.server.request(`/api/v1/sources/${bridge.source_id}/ingest`, {
    method: "POST",
    body: JSON.stringify({ order: 1 }),
  });
  const eventId = ((await sent.json()) as { event_id: string }).event_id;
  const issue = await pollUntil(
    async () =>
      (
        (await callAs(world.server, owner, "GET", "/api/v1/issues?status=open")).body.items as {
          id: string;
        }[]
      )[0],
    { what: "an open issue" },
  );
  await pollUntil(
    async () =>
      (await callAs(world.server, owner, "GET", `/api/v1/events/${eventId}`)).body.data.status ===
        "failed" || undefined,
    { what: "the event failed" },
  );
  const monitor = await callAs(world.server, owner, "POST", "/api/v1/uptime-monitors", {
    name: "Ledger port",
    type: "tcp",
    url: "tcp://127.0.0.1:9",
    interval_seconds: 3600,
    timeout_seconds: 2,
  });
  expect(monitor.status).toBe(201);
  const monitorId = monitor.body.data.id as string;
  await pollUntil(
    async () =>
      (await callAs(world.server, owner, "GET", `/api/v1/uptime-monitors/${monitorId}`)).body.data
        .status === "down" || undefined,
    { what: "the monitor down" },
  );
  const endpoint = await world.createEndpoint(owner, "Orders inbox");
  expect((await world.capture(endpoint.slug, { method: "POST", body: "{}" })).status).toBe(200);
  return { eventId, issueId: issue.id, monitorId };
}

const watch = (page: Page) => watchPage(world, page);

/** Logs in through the login page and stays where it lands. */
async function logInToDashboard(page: Page) {
  await page.goto(`${world.server.url}/login`);
  await page.getByLabel("Email").fill(owner.email);
  await page.getByLabel("Password").fill(owner.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Dashboard", exact: true }).waitFor();
}

describe("dashboard in chromium", () => {
  test("the first page after login lists what needs attention, each with its link", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    await logInToDashboard(page);
    expect(await page.title()).toBe("Dashboard · Weir");
    const monitors = page.getByRole("region", { name: "Monitors down" });
    await monitors.getByText(/Down/).waitFor();
    await monitors.getByRole("link", { name: "Ledger port" }).waitFor();
    const issues = page.getByRole("region", { name: "Open issues" });
    await issues.getByText("1 open").waitFor();
    expect(await issues.locator(`a[href="/issues/${seeded.issueId}"]`).count()).toBe(1);
    const failed = page.getByRole("region", { name: "Failing deliveries" });
    await failed.locator(`a[href="/events/${seeded.eventId}"]`).waitFor();
    const endpoints = page.getByRole("region", { name: "Endpoints receiving today" });
    await endpoints.getByRole("link", { name: "Orders inbox" }).waitFor();

    await monitors.getByRole("link", { name: "Ledger port" }).click();
    await page.getByRole("heading", { name: "Ledger port", exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/monitors/${seeded.monitorId}`);
    await clean();
  });

  test("a panel whose call fails shows the error and Retry; the others still show", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    let refuse = true;
    await page.route("**/api/v1/issues?*", (route) =>
      refuse
        ? route.fulfill({
            status: 500,
            contentType: "application/json",
            body: JSON.stringify({ error: "internal", request_id: "req-dash-1" }),
          })
        : route.continue(),
    );
    await logInToDashboard(page);
    const issues = page.getByRole("region", { name: "Open issues" });
    await issues.getByText(/request req-dash-1/).waitFor();
    await page
      .getByRole("region", { name: "Endpoints receiving today" })
      .getByRole("link", { name: "Orders inbox" })
      .waitFor();
    refuse = false;
    await issues.getByRole("button", { name: "Retry" }).click();
    await issues.getByText("1 open").waitFor();
    await clean();
  });

  test("on a small screen in the dark, nothing scrolls sideways", async () => {
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await logInToDashboard(page);
    await page
      .getByRole("region", { name: "Failing deliveries" })
      .getByText("1 failed event", { exact: true })
      .waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });
});
