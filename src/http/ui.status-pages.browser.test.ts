/**
 * Status pages, incidents and maintenance windows in chromium against a real server: create (a
 * 422 and a taken slug at the field first), attach and reorder monitors and a bridge, the preview
 * read from the public JSON, edit, delete and the 404 after it; an incident through its
 * workflow; one-off and recurring windows; a member's read-only view on a small dark screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { openScreen, watchPage } from "../test-utils/browser-checks.ts";
import { sidewaysOverflow, startUiWorld, type UiWorld } from "../test-utils/browser-world.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";

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
const api = (method: string, path: string, body?: unknown) =>
  callAs(world.server, owner, method, path, body);
const monitor = async (name: string) =>
  (
    await api("POST", "/api/v1/uptime-monitors", {
      name,
      type: "tcp",
      url: "tcp://127.0.0.1:9",
      paused: true,
    })
  ).body.data as { id: string };
const statusPage = async (slug: string, extra: Record<string, unknown> = {}) =>
  (await api("POST", "/api/v1/status-pages", { status_page: { name: slug, slug, ...extra } })).body
    .data as { id: string };

describe("status pages in chromium", () => {
  test("create (422 and taken slug at the field), attach, reorder, preview, edit, delete, 404", async () => {
    await statusPage("taken-slug");
    await monitor("Checkout API");
    await monitor("Search API");
    await api("POST", "/api/v1/bridges", {
      name: "Orders bridge",
      source: { name: "Shop", type: "webhook" },
      destinations: [{ name: "Slack", url: `${sink.url}/slack` }],
    });
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, owner, "/status-pages", "Status pages");
    await page.getByRole("row", { name: /taken-slug.*\/status\/taken-slug.*0/ }).waitFor();

    await page.getByRole("button", { name: "New status page" }).click();
    await page.getByLabel("Page name").fill("Acme status");
    await page.getByLabel("Slug").fill("A");
    await page.getByLabel("Groups").fill("Backend\nDelivery");
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.locator('input[name="slug"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Slug").fill("taken-slug");
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.getByText("Another status page already uses this slug.").waitFor();
    expect(await page.locator('input[name="slug"]').getAttribute("aria-invalid")).toBe("true");
    await page.getByLabel("Slug").fill("acme-ui");
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.getByRole("heading", { name: "Acme status", exact: true }).waitFor();
    await page.getByText("The page shows nothing yet.").waitFor();

    const target = page.getByLabel("Monitor, bridge or destination");
    await target.selectOption({ label: "Monitor: Checkout API" });
    await page.getByLabel("Group").selectOption("Backend");
    await page.getByRole("button", { name: "Add to page" }).click();
    await page.getByRole("listitem").filter({ hasText: "Checkout API" }).first().waitFor();
    await target.selectOption({ label: "Monitor: Search API" });
    await page.getByLabel("Display name").fill("Search");
    await page.getByRole("button", { name: "Add to page" }).click();
    await page.getByRole("button", { name: "Move Search up" }).waitFor();
    await target.selectOption({ label: "Bridge: Orders bridge" });
    await page.getByLabel("Display name").fill("Order webhooks");
    await page.getByRole("button", { name: "Add to page" }).click();
    const components = page.getByRole("list", { name: "Delivery components" });
    await components.getByText("Order webhooks").waitFor();
    await target.selectOption({ label: "Destination: Slack (Orders bridge)" });
    await page.getByLabel("Display name").fill("Slack alerts");
    await page.getByRole("button", { name: "Add to page" }).click();
    // A component is moved from the keyboard: the move buttons are plain buttons in tab order.
    await page.getByRole("button", { name: "Move Slack alerts up" }).focus();
    await page.keyboard.press("Enter");
    await components.locator("li").first().getByText("Slack alerts").waitFor();
    const withComponents = (await api("GET", "/api/v1/status-pages")).body.data as {
      slug: string;
      components: { display_name: string; display_order: number; destination_id?: string }[];
    }[];
    const placed = withComponents.find((p) => p.slug === "acme-ui")?.components ?? [];
    expect(
      [...placed].sort((a, b) => a.display_order - b.display_order).map((c) => c.display_name),
    ).toEqual(["Slack alerts", "Order webhooks"]);
    await page.getByRole("button", { name: "Move Search up" }).click();
    const monitors = page.getByRole("list", { name: "Monitors" });
    await monitors.locator("li").first().getByText("Search", { exact: true }).waitFor();
    const preview = page.getByRole("region", { name: "Preview" });
    await preview.getByText("Order webhooks").waitFor();
    await preview.getByRole("heading", { name: "Backend" }).waitFor();
    const pages = (await api("GET", "/api/v1/status-pages")).body.data as {
      slug: string;
      monitors: { display_name: string | null; display_order: number }[];
    }[];
    const acme = pages.find((p) => p.slug === "acme-ui");
    const order = [...(acme?.monitors ?? [])].sort((a, b) => a.display_order - b.display_order);
    expect(order[0]?.display_name).toBe("Search");

    await page.getByRole("link", { name: "Open the public page" }).waitFor();
    expect(
      await page.getByRole("link", { name: "Open the public page" }).getAttribute("href"),
    ).toBe("/status/acme-ui");
    await page.getByRole("button", { name: "Remove Order webhooks" }).click();
    await page.getByText("“Order webhooks” removed").waitFor();

    // No mail settings on this server: offering email updates is refused, and the form says why.
    await page.getByRole("button", { name: "Edit settings" }).click();
    await page.getByLabel(/Offer updates by email/).check();
    await page.getByRole("button", { name: "Save status page" }).click();
    await page.getByText(/WEIR_SMTP_URL/).waitFor();
    await page.getByLabel(/Offer updates by email/).uncheck();
    await page.getByLabel("Page name").fill("Acme public status");
    await page.getByLabel("Colour").fill("#0f766e");
    await page.getByLabel("Logo URL").fill("https://acme.example/logo.png");
    await page.getByLabel("Custom domain").fill("status.acme-ui.example");
    await page.getByLabel("Show “Powered by Weir”").uncheck();
    await page.getByRole("button", { name: "Save status page" }).click();
    await page.getByRole("heading", { name: "Acme public status", exact: true }).waitFor();
    await page.getByText(/also at status\.acme-ui\.example/).waitFor();
    const edited = (await api("GET", "/api/v1/status-pages")).body.data.find(
      (p: { slug: string }) => p.slug === "acme-ui",
    );
    expect(edited).toMatchObject({
      primary_color: "#0f766e",
      logo_url: "https://acme.example/logo.png",
      custom_domain: "status.acme-ui.example",
      show_service_branding: false,
      allow_subscribers: false,
      groups: [
        { name: "Backend", order: 1 },
        { name: "Delivery", order: 2 },
      ],
    });

    await page.getByRole("link", { name: "Status pages" }).first().click();
    await page.getByRole("row", { name: /Acme public status.*\/status\/acme-ui.*2/ }).waitFor();
    await page.getByRole("link", { name: "Acme public status" }).click();
    const url = page.url();
    await page.getByRole("button", { name: "Delete status page" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete status page" }).click();
    await page.getByRole("heading", { name: "Status pages", exact: true }).waitFor();
    expect((await world.server.request("/status/acme-ui")).status).toBe(404);
    await page.goto(url);
    await page.getByRole("heading", { name: "Status page not found" }).waitFor();
    await clean();
  });

  test("an incident opens, moves through its workflow with a timeline, then is deleted", async () => {
    const { id: monitorId } = await monitor("Payments");
    const { id } = await statusPage("incident-ui");
    await api("POST", `/api/v1/status-pages/${id}/monitors/${monitorId}`, {});
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, owner, `/status-pages/${id}`, "incident-ui");
    await page.getByText("No incidents yet.").waitFor();

    await page.getByRole("button", { name: "Open incident" }).click();
    const form = page.getByRole("form", { name: "Open incident" });
    await form.getByRole("button", { name: "Open incident" }).click();
    await page.locator('input[name="title"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Incident title").fill("Slow checkout");
    await page.getByLabel("Impact").selectOption("major");
    await page.getByLabel("Message", { exact: true }).fill("Payments take longer than usual.");
    await page.getByRole("checkbox", { name: "Payments" }).check();
    await form.getByRole("button", { name: "Open incident" }).click();
    const incident = page.getByRole("article", { name: "Slow checkout" });
    await incident.getByText(/Investigating · Major: partial outage/).waitFor();
    await incident.getByText("Affects Payments").waitFor();
    await page
      .getByRole("region", { name: "Preview" })
      .getByText("Open incidents: Slow checkout")
      .waitFor();

    for (const [status, message] of [
      ["Identified", "A slow database query."],
      ["Monitoring", "Fixed; watching."],
      ["Resolved", "Back to normal."],
    ] as const) {
      await expect(incident.getByLabel("New status").inputValue()).resolves.toBe(
        status.toLowerCase(),
      );
      await incident.getByLabel("Update message").fill(message);
      await incident.getByRole("button", { name: "Post update" }).click();
      await incident
        .getByRole("list", { name: "Timeline of Slow checkout" })
        .getByText(message)
        .waitFor();
    }
    await incident.getByText(/^Resolved · Major/).waitFor();
    const timeline = incident.getByRole("list", { name: "Timeline of Slow checkout" });
    expect(await timeline.locator("li").count()).toBe(4);
    await expect(timeline.locator("li").first().textContent()).resolves.toContain("Resolved");

    await incident.getByRole("button", { name: "Delete incident" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete incident" }).click();
    await page.getByText("No incidents yet.").waitFor();
    const left = await api("GET", `/api/v1/status-pages/${id}/incidents`);
    expect(left.body.data).toEqual([]);
    await clean();
  });

  test("maintenance: a one-off window (422 first), then recurring with next times, deleted", async () => {
    await monitor("Database");
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, owner, "/status-pages", "Status pages");
    await page.getByRole("link", { name: "Maintenance windows" }).click();
    await page.getByRole("heading", { name: "Maintenance windows", exact: true }).waitFor();
    await page.getByText("No maintenance windows yet.").waitFor();

    await page.getByRole("button", { name: "New window" }).click();
    await page.getByLabel("Window title").fill("Database upgrade");
    await page.getByLabel("Starts (local time)").fill("2030-03-01T22:00");
    await page.getByLabel("Ends (local time)").fill("2030-03-01T21:00");
    await page.getByLabel("Database").check();
    await page.getByRole("button", { name: "Plan window" }).click();
    await page.locator('input[name="ends_at"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Ends (local time)").fill("2030-03-01T23:30");
    await page.getByRole("button", { name: "Plan window" }).click();
    const item = page.getByRole("listitem").filter({ hasText: "Database upgrade" });
    await item.getByText(/◷ Upcoming · once · Database/).waitFor();
    const [saved] = (await api("GET", "/api/v1/maintenance-windows")).body.data as {
      starts_at: string;
    }[];
    expect(saved?.starts_at).toBe(new Date(2030, 2, 1, 22, 0).toISOString());

    await page.getByRole("button", { name: "Edit Database upgrade" }).click();
    await page.getByLabel("Window title").fill("Weekly patching");
    await page.getByLabel("Repeats").selectOption("yes");
    await page.getByLabel("Cron").fill("0 2 * * 0");
    await page.getByLabel("Duration (minutes)").fill("90");
    await page.getByLabel("Time zone").selectOption("Europe/Berlin");
    await page.getByRole("button", { name: "Save window" }).click();
    const weekly = page.getByRole("listitem").filter({ hasText: "Weekly patching" });
    await weekly.getByText(/repeats “0 2 \* \* 0” for 90 min \(Europe\/Berlin\)/).waitFor();
    expect(
      await weekly
        .getByRole("list", { name: "Next occurrences of Weekly patching" })
        .locator("li")
        .count(),
    ).toBe(3);

    await page.getByRole("button", { name: "Delete Weekly patching" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete window" }).click();
    await page.getByText("No maintenance windows yet.").waitFor();
    await clean();
  });

  test("the dashboard counts monitors in maintenance and links to the windows", async () => {
    const account = await signUp(world.server, { plan: "team" });
    const made = await callAs(world.server, account, "POST", "/api/v1/uptime-monitors", {
      name: "Nightly job",
      type: "push",
      interval_seconds: 86400,
    });
    const now = Date.now();
    const window = await callAs(world.server, account, "POST", "/api/v1/maintenance-windows", {
      title: "Now",
      monitor_ids: [made.body.data.id],
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 3_600_000).toISOString(),
    });
    expect(window.status).toBe(201);
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, account, "/", "Dashboard");
    const panel = page.getByRole("region", { name: "Monitors down" });
    await panel.getByText("1 in maintenance").waitFor();
    await panel.getByRole("link", { name: "Maintenance windows" }).click();
    await page.getByRole("heading", { name: "Maintenance windows", exact: true }).waitFor();
    await page.getByText(/● Under way · once · Nightly job/).waitFor();
    await clean();
  });

  test("an admin's forms fit a small screen in the dark", async () => {
    const { id } = await statusPage("small-admin", { groups: [{ name: "Core", order: 1 }] });
    const { id: monitorId } = await monitor("Small API");
    const planned = await api("POST", "/api/v1/maintenance-windows", {
      title: "Small weekly",
      monitor_ids: [monitorId],
      cron: "0 3 * * 1",
      duration_minutes: 30,
      timezone: "UTC",
    });
    expect(planned.status).toBe(201);
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await openScreen(world, page, owner, `/status-pages/${id}`, "small-admin");
    await page.getByRole("button", { name: "Edit settings" }).click();
    await page.getByRole("button", { name: "Open incident" }).click();
    await page.getByRole("button", { name: "Save status page" }).waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.goto(`${world.server.url}/maintenance`);
    await page.getByRole("list", { name: "Next occurrences of Small weekly" }).waitFor();
    await page.getByRole("button", { name: "New window" }).click();
    await page.getByLabel("Repeats").selectOption("yes");
    await page.getByLabel("Time zone").waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });

  test("a member reads status pages without controls, on a small screen in the dark", async () => {
    const { id } = await statusPage("member-view", { groups: [{ name: "Core", order: 1 }] });
    const { id: monitorId } = await monitor("Member API");
    await api("POST", `/api/v1/status-pages/${id}/monitors/${monitorId}`, { group: "Core" });
    const member = await owner.addMember("member");
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await openScreen(world, page, member, "/status-pages", "Status pages");
    expect(await page.getByRole("button", { name: "New status page" }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.getByRole("link", { name: "member-view", exact: true }).click();
    await page.getByRole("heading", { name: "member-view", exact: true }).waitFor();
    await page
      .getByRole("region", { name: "Preview" })
      .getByText(/Member API/)
      .waitFor();
    expect(
      await page.getByRole("button", { name: /Edit|Delete|Add|Move|Open incident/ }).count(),
    ).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });
});
