import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { unbalancedTags } from "../test-utils/html-checks.ts";
import { createMonitorAs } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import type { MaintenanceFor } from "./status-pages.ports.ts";

let server: TestServer;
let owner: TestAccount;
const PATH = "/api/v1/status-pages";
const maintenanceFor: MaintenanceFor = (_org, monitorIds, now) => ({
  active: [],
  upcoming: [],
  recent: [
    {
      window_id: "w1",
      title: "Router swap <now>",
      description: null,
      monitor_ids: monitorIds,
      starts_at: new Date(now.getTime() - 7_200_000).toISOString(),
      ends_at: new Date(now.getTime() - 3_600_000).toISOString(),
    },
  ],
});

beforeAll(async () => {
  server = await startTestServer({ ports: { statusPages: { maintenanceFor } } });
  owner = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

async function pageWithMonitor(slug: string, pushes: string[]) {
  const page = (
    await callAs(server, owner, "POST", PATH, { status_page: { name: "Acme & co", slug } })
  ).body.data;
  const monitor = await createMonitorAs(server, owner, {
    name: "API",
    type: "push",
    interval_seconds: 60,
  });
  const token = String(monitor.push_url).split("/").pop();
  for (const query of pushes) await server.request(`/api/push/${token}${query}`);
  await callAs(server, owner, "POST", `${PATH}/${page.id}/monitors/${monitor.id}`, {
    display_name: "<API>",
  });
  return { page, monitor };
}

describe("badge and feed", () => {
  test("badge.svg shows the page's uptime, or one of its monitors' with ?monitor=", async () => {
    const { monitor } = await pageWithMonitor("badge-page", ["", "", "", "?status=down"]);
    const overall = await server.request("/status/badge-page/badge.svg");
    expect(overall.status).toBe(200);
    expect(overall.headers.get("content-type")).toContain("image/svg+xml");
    const svg = await overall.text();
    expect(svg).toStartWith("<svg xmlns=");
    expect(svg).toContain(">75.00%</text>");
    const one = await (
      await server.request(`/status/badge-page/badge.svg?monitor=${monitor.id}`)
    ).text();
    expect(one).toContain("uptime: 75.00%");
    expect((await server.request("/status/badge-page/badge.svg?monitor=other")).status).toBe(404);
    expect((await server.request("/status/no-page/badge.svg")).status).toBe(404);
  });

  test("feed.atom: state changes, incident updates and recent maintenance, escaped, as Atom", async () => {
    const { page } = await pageWithMonitor("feed-page", ["", "?status=down"]);
    const incident = await callAs(server, owner, "POST", `${PATH}/${page.id}/incidents`, {
      title: "API <errors>",
      impact: "major",
      status: "investigating",
      message: "We & they look.",
    });
    expect(incident.status).toBe(201);
    const answer = await server.request("/status/feed-page/feed.atom");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("application/atom+xml");
    const xml = await answer.text();
    expect(xml).toStartWith(
      '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">',
    );
    expect(xml).toContain("<title>Acme &amp; co</title>");
    expect(xml).toContain(`<link rel="self" href="${server.url}/status/feed-page/feed.atom"/>`);
    expect(xml).toContain("<title>&lt;API&gt; is down</title>");
    expect(xml).toContain("<title>API &lt;errors&gt;: investigating</title>");
    expect(xml).toContain("We &amp; they look.");
    expect(xml).toContain("<title>Maintenance: Router swap &lt;now&gt;</title>");
    const entries = xml.split("<entry>").slice(1);
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const entry of entries) {
      expect(entry).toMatch(/<id>[^<]+<\/id>/);
      expect(entry).toMatch(/<updated>\d{4}-\d\d-\d\dT[^<]+<\/updated>/);
    }
    expect(unbalancedTags(xml.replace(/<\?xml[^>]*>/, ""))).toEqual([]);
  });
});
