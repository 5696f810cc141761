/**
 * The status page, incident and maintenance screens for scripts/screenshots.ts: a public page
 * showing the monitors made before it, with an incident being worked on, and a weekly window.
 */
import type { Page } from "playwright-core";
import type { UiWorld } from "../src/test-utils/browser-world.ts";

const WAIT = { timeout: 15_000 };

type Shoot = (page: Page, name: string) => Promise<void>;

/** An API call as the logged-in UI makes it (its session cookie, same origin). */
async function api(page: Page, method: string, path: string, body?: unknown) {
  const answer = await page.evaluate(
    async ([m, p, b]) => {
      const response = await fetch(p as string, {
        method: m as string,
        headers: { "content-type": "application/json", "x-weir-ui": "1" },
        body: b === undefined ? undefined : JSON.stringify(b),
      });
      return { status: response.status, text: await response.text() };
    },
    [method, path, body] as const,
  );
  if (answer.status >= 300)
    throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
  return JSON.parse(answer.text || "null") as { data: { id: string; name: string } };
}

export async function statusPagesScreens(world: UiWorld, page: Page, shoot: Shoot) {
  const monitors = (await api(page, "GET", "/api/v1/uptime-monitors")).data as unknown as {
    id: string;
    name: string;
  }[];
  const created = await api(page, "POST", "/api/v1/status-pages", {
    status_page: {
      name: "Acme status",
      slug: "acme",
      description: "Shop, payments and order delivery",
      primary_color: "#0f766e",
      groups: [
        { name: "Backend", order: 1 },
        { name: "Delivery", order: 2 },
      ],
    },
  });
  const id = created.data.id;
  for (const [index, m] of monitors.entries())
    await api(page, "POST", `/api/v1/status-pages/${id}/monitors/${m.id}`, {
      display_order: index + 1,
      group: "Backend",
    });
  const incident = await api(page, "POST", `/api/v1/status-pages/${id}/incidents`, {
    title: "Slow checkout",
    impact: "minor",
    status: "investigating",
    message: "Payments take longer than usual.",
    monitor_ids: monitors.slice(0, 1).map((m) => m.id),
  });
  await api(page, "POST", `/api/v1/status-pages/${id}/incidents/${incident.data.id}/updates`, {
    status: "identified",
    message: "A slow database query; a fix is being deployed.",
  });
  await api(page, "POST", "/api/v1/maintenance-windows", {
    title: "Weekly patching",
    description: "Operating system updates",
    monitor_ids: monitors.map((m) => m.id),
    cron: "0 2 * * 0",
    duration_minutes: 90,
    timezone: "Europe/Berlin",
  });

  await page.goto(`${world.server.url}/status-pages`);
  await page.getByRole("row", { name: /Acme status/ }).waitFor(WAIT);
  await shoot(page, "status-pages");
  await page.getByRole("link", { name: "Acme status" }).click();
  await page.getByRole("article", { name: "Slow checkout" }).waitFor(WAIT);
  await page.getByRole("region", { name: "Preview" }).getByText("Open incidents:").waitFor(WAIT);
  await shoot(page, "status-page-editor");
  await page.goto(`${world.server.url}/maintenance`);
  await page.getByRole("list", { name: "Next occurrences of Weekly patching" }).waitFor(WAIT);
  await shoot(page, "maintenance");
}
