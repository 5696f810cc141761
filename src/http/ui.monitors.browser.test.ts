/**
 * Monitors in chromium against a real server: create (a 422 at the field first), check now, the
 * chart and its range in the URL, pause, edit, filters in the URL, delete and the 404 after it; a
 * push monitor's URL and curl line; a member's read-only view on a small dark screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { openScreen, watchPage } from "../test-utils/browser-checks.ts";
import {
  readClipboard,
  sidewaysOverflow,
  startUiWorld,
  type UiWorld,
} from "../test-utils/browser-world.ts";
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
interface MonitorRow {
  id: string;
  name: string;
  paused: boolean;
  push_url?: string;
}
const monitorNamed = async (name: string) =>
  (
    (await callAs(world.server, owner, "GET", "/api/v1/uptime-monitors")).body.data as MonitorRow[]
  ).find((m) => m.name === name);

describe("monitors in chromium", () => {
  test("create (422 at the field first), check now, chart range, pause, edit, filter, delete, 404", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, owner, "/monitors", "Monitors");
    await page.getByText("No monitors yet").waitFor();

    await page.getByRole("button", { name: "New monitor" }).click();
    await page.getByLabel("Monitor name").fill("Shop health");
    await page.getByLabel("Monitor type").selectOption("http");
    await page.getByLabel("URL", { exact: true }).fill(`${sink.url}/health`);
    await page.getByLabel("Check every (seconds)").fill("5");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.locator('input[name="interval_seconds"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Check every (seconds)").fill("600");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "Shop health", exact: true }).waitFor();

    await page.getByRole("button", { name: "Check now" }).click();
    await page
      .getByRole("status")
      .getByText(/Checked: up/)
      .waitFor();
    await page
      .getByRole("table", { name: "Checks" })
      .getByRole("row", { name: /Up.*200/ })
      .first()
      .waitFor();
    await page.getByRole("img", { name: /Response time, 24 h: median \d+ ms/ }).waitFor();
    await page.getByRole("button", { name: "7 days" }).click();
    await page.getByRole("img", { name: /Response time, 7 days:/ }).waitFor();
    expect(new URL(page.url()).searchParams.get("range")).toBe("7d");

    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByRole("button", { name: "Resume" }).waitFor();
    await page.getByRole("status").getByText("Monitor “Shop health” paused").waitFor();
    expect((await monitorNamed("Shop health"))?.paused).toBe(true);

    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Monitor name").fill("Shop is healthy");
    await page.getByRole("button", { name: "Save monitor" }).click();
    await page.getByRole("heading", { name: "Shop is healthy", exact: true }).waitFor();

    await page.getByRole("link", { name: "Monitors" }).first().click();
    const row = page.getByRole("row", { name: /Shop is healthy.*Paused.*HTTP/ });
    await row.waitFor();
    await row
      .getByRole("img", { name: /Response time of Shop is healthy, 24 h: median \d+ ms/ })
      .waitFor();
    await page.getByLabel("State").selectOption("down");
    await page.getByText("No monitors match these filters").waitFor();
    expect(new URL(page.url()).searchParams.get("status")).toBe("down");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.getByRole("link", { name: "Shop is healthy" }).click();

    const url = page.url();
    await page.getByRole("button", { name: "Delete monitor" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete monitor" }).click();
    await page.getByRole("heading", { name: "Monitors", exact: true }).waitFor();
    await page.getByText("No monitors yet").waitFor();
    expect(await monitorNamed("Shop is healthy")).toBeUndefined();
    await page.goto(url);
    await page.getByRole("heading", { name: "Monitor not found" }).waitFor();
    await clean();
  });

  test("a push monitor shows its URL with a copy button and a curl line", async () => {
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, owner, "/monitors", "Monitors");
    await page.getByRole("button", { name: "New monitor" }).click();
    await page.getByLabel("Monitor name").fill("Nightly backup");
    await page.getByLabel("Monitor type").selectOption("push");
    await page.getByLabel("Expect a push every (seconds)").fill("86400");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "Push URL" }).waitFor();
    const pushUrl = (await monitorNamed("Nightly backup"))?.push_url ?? "";
    expect(pushUrl).toContain("/api/push/");
    await page.getByText(`curl -fsS "${pushUrl}"`).waitFor();
    await page.getByRole("button", { name: "Copy push URL" }).click();
    await page.getByRole("button", { name: "Copied ✔" }).waitFor();
    expect(await readClipboard(page)).toBe(pushUrl);
    await clean();
  });

  test("a member reads monitors without controls, on a small screen in the dark", async () => {
    const made = await callAs(world.server, owner, "POST", "/api/v1/uptime-monitors", {
      name: "Ops database",
      type: "tcp",
      url: "tcp://127.0.0.1:9",
      paused: true,
    });
    expect(made.status).toBe(201);
    const member = await owner.addMember("member");
    const page = await world.newPage({ width: 375, height: 740, colorScheme: "dark" });
    const clean = watch(page);
    await openScreen(world, page, member, "/monitors", "Monitors");
    await page.getByRole("row", { name: /Ops database.*Paused.*TCP/ }).waitFor();
    expect(await page.getByRole("button", { name: "New monitor" }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.getByRole("link", { name: "Ops database" }).click();
    await page.getByRole("heading", { name: "Ops database", exact: true }).waitFor();
    expect(await page.getByRole("button", { name: /Pause|Resume|Delete/ }).count()).toBe(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });

  test("an admin's monitor form and a monitor's page fit a phone without sideways scroll", async () => {
    const made = await callAs(world.server, owner, "POST", "/api/v1/uptime-monitors", {
      name: "Phone check",
      type: "http",
      url: `${sink.url}/a/rather/long/path/that/has/to/wrap/on/a/small/screen/health`,
      interval_seconds: 600,
    });
    expect(made.status).toBe(201);
    const page = await world.newPage({ width: 375, height: 740 });
    const clean = watch(page);
    await openScreen(world, page, owner, "/monitors", "Monitors");
    await page.getByRole("button", { name: "New monitor" }).click();
    await page.getByLabel("JSON expected").waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await page.getByRole("link", { name: "Phone check" }).click();
    await page.getByRole("button", { name: "Check now" }).click();
    await page
      .getByRole("table", { name: "Checks" })
      .getByRole("row", { name: /Up/ })
      .first()
      .waitFor();
    await page.getByText("Show as table").click();
    expect(await sidewaysOverflow(page)).toBe(0);
    await clean();
  });
  test("a docker monitor made in the form depends on a parent; both pages show it; None removes it", async () => {
    const router = await callAs(world.server, owner, "POST", "/api/v1/uptime-monitors", {
      name: "Edge router",
      type: "ping",
      hostname: "127.0.0.1",
      paused: true,
    });
    expect(router.status).toBe(201);
    const page = await world.newPage();
    const clean = watch(page);
    await openScreen(world, page, owner, "/monitors", "Monitors");
    await page.getByRole("button", { name: "New monitor" }).click();
    await page.getByLabel("Monitor name").fill("Paperless");
    await page.getByLabel("Monitor type").selectOption("docker");
    await page.getByLabel("Container").fill("paperless-web");
    await page.getByLabel("Depends on").selectOption({ label: "Edge router" });
    await page.getByLabel("Check every (seconds)").fill("600");
    await page.getByRole("button", { name: "Create monitor" }).click();
    await page.getByRole("heading", { name: "Paperless", exact: true }).waitFor();
    const family = page.getByRole("region", { name: "Dependencies" });
    await family.getByRole("link", { name: "Edge router" }).waitFor();
    const child = (await monitorNamed("Paperless")) as MonitorRow & { parent_id?: string };
    expect(child.parent_id).toBe(router.body.data.id);

    await family.getByRole("link", { name: "Edge router" }).click();
    await page.getByRole("heading", { name: "Edge router", exact: true }).waitFor();
    await page
      .getByRole("region", { name: "Dependencies" })
      .getByRole("link", { name: "Paperless" })
      .click();
    await page.getByRole("heading", { name: "Paperless", exact: true }).waitFor();
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Depends on").selectOption({ label: "None" });
    await page.getByRole("button", { name: "Save monitor" }).click();
    await page.getByRole("status").getByText("Monitor “Paperless” saved").waitFor();
    await page.getByRole("region", { name: "Dependencies" }).waitFor({ state: "detached" });
    expect(
      ((await monitorNamed("Paperless")) as { parent_id?: string | null }).parent_id,
    ).toBeNull();
    await clean();
  });
});
