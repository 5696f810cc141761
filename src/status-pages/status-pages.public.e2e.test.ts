import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { unbalancedTags } from "../test-utils/html-checks.ts";
import { createMonitorAs } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import type { DeliveryHealthOf, MaintenanceFor } from "./status-pages.ports.ts";

let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;
const PATH = "/api/v1/status-pages";
const today = new Date().toISOString().slice(0, 10);

const maintenance: { monitorIds: string[] } = { monitorIds: [] };
const maintenanceFor: MaintenanceFor = (_org, monitorIds, now) => {
  const shown = monitorIds.filter((id) => maintenance.monitorIds.includes(id));
  if (shown.length === 0) return { active: [], upcoming: [], recent: [] };
  const window = {
    window_id: "w1",
    title: "Database upgrade <b>",
    description: null,
    monitor_ids: shown,
    starts_at: new Date(now.getTime() - 60_000).toISOString(),
    ends_at: new Date(now.getTime() + 3_600_000).toISOString(),
  };
  return { active: [window], upcoming: [], recent: [] };
};
const deliveryHealth: DeliveryHealthOf = async (organizationId, component) =>
  "bridge_id" in component && organizationId === owner.organizationId
    ? { name: "Order webhooks", state: "up", days: [{ date: today, attempted: 8, delivered: 6 }] }
    : null;

beforeAll(async () => {
  server = await startTestServer({ ports: { statusPages: { maintenanceFor, deliveryHealth } } });
  owner = await signUp(server, { plan: "team", orgName: "Owner Org" });
  stranger = await signUp(server, { plan: "team", orgName: "Secret Stranger Org" });
});
afterAll(() => server.stop());

let counter = 0;
async function pageWith(extra: Record<string, unknown> = {}) {
  const slug = `pub-${++counter}-${Date.now().toString(36)}`;
  const answer = await callAs(server, owner, "POST", PATH, {
    status_page: { name: "Acme status", slug, ...extra },
  });
  if (answer.status !== 201) throw new Error(JSON.stringify(answer.body));
  return answer.body.data as { id: string; slug: string };
}
async function pushMonitor(name: string, pushes: ("up" | "down")[] = []) {
  const monitor = await createMonitorAs(server, owner, {
    name,
    type: "push",
    interval_seconds: 60,
  });
  const token = String(monitor.push_url).split("/").pop();
  for (const state of pushes) {
    const query = state === "down" ? "?status=down&msg=boom" : "";
    expect((await server.request(`/api/push/${token}${query}`)).status).toBe(200);
  }
  return monitor;
}
const attach = (pageId: string, monitorId: string, body: Record<string, unknown> = {}) =>
  callAs(server, owner, "POST", `${PATH}/${pageId}/monitors/${monitorId}`, body);
const html = async (path: string, headers: Record<string, string> = {}) => {
  const response = await server.request(path, { headers });
  return { response, text: await response.text() };
};

describe("the public status page", () => {
  test("HTML without credentials: banner, monitors by display_order in groups, 90 bars with tooltips, uptime", async () => {
    const page = await pageWith({ groups: [{ name: "Backend", order: 1 }] });
    const api = await pushMonitor("api-internal", ["up", "up", "up", "down"]);
    const web = await pushMonitor("web", ["up"]);
    await attach(page.id, api.id, { display_name: "Public API", display_order: 2 });
    await attach(page.id, web.id, { display_name: "Website", display_order: 1, group: "Backend" });
    const other = await pushMonitor("worker", ["up"]);
    await attach(page.id, other.id, { display_name: "Worker", display_order: 0, group: "Backend" });

    const { response, text } = await html(`/status/${page.slug}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(text).toContain("<h1>Acme status</h1>");
    expect(text).toContain("Partial outage");
    // Ungrouped first, then the group; inside a group by display_order.
    const order = ["Public API", "Backend", "Worker", "Website"].map((s) => text.indexOf(s));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect(text.match(/class="bar /g)?.length).toBe(270);
    expect(text).toContain(`title="${today}: 75.00 % uptime,`);
    expect(text).toContain(": no data");
    expect(text).toContain("75.00 % uptime over the last 90 days");
    expect(text).toMatch(/>Down</);
    expect(text).toMatch(/>Operational</);
    expect(text).toContain("Powered by Weir");
    expect(text).toContain("Last updated <time datetime=");
    expect(unbalancedTags(text)).toEqual([]);
  });

  test("/status/{slug}.json gives the same data; no id or name of another organization appears", async () => {
    const page = await pageWith({ description: "Our services" });
    const monitor = await pushMonitor("api", ["up"]);
    await attach(page.id, monitor.id);
    const answer = await apiCall(server, "GET", `/status/${page.slug}.json`);
    expect(answer.status).toBe(200);
    const data = answer.body.data;
    expect(data).toMatchObject({
      name: "Acme status",
      description: "Our services",
      status: "operational",
      status_label: "All systems operational",
      primary_color: "#a855f7",
      show_service_branding: true,
    });
    const item = data.groups[0].items[0];
    expect(item).toMatchObject({ kind: "monitor", id: monitor.id, name: "api", status: "up" });
    expect(item.days).toHaveLength(90);
    expect(item.days.at(-1)).toMatchObject({ date: today, percent: 100, downtime_minutes: 0 });
    expect(item.days[0]).toEqual({
      date: item.days[0].date,
      percent: null,
      downtime_minutes: null,
    });
    const whole = JSON.stringify(answer.body) + (await html(`/status/${page.slug}`)).text;
    for (const secret of [stranger.organizationId, "Secret Stranger Org", owner.organizationId]) {
      expect(whole).not.toContain(secret);
    }
  });

  test("an unknown slug is a 404 HTML page", async () => {
    const { response, text } = await html("/status/no-such-page");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(text).toContain("Status page not found");
    const json = await apiCall(server, "GET", "/status/no-such-page.json");
    expect(json.status).toBe(404);
    expect(json.body).toEqual({ error: "not_found" });
  });

  test("the page's colour and logo; no branding when show_service_branding is false", async () => {
    const page = await pageWith({
      primary_color: "#0f766e",
      logo_url: "https://cdn.example.com/logo.png",
      show_service_branding: false,
    });
    const { response, text } = await html(`/status/${page.slug}`);
    expect(text).toContain('<img class="logo" src="https://cdn.example.com/logo.png"');
    expect(text).not.toContain("Powered by Weir");
    expect(response.headers.get("content-security-policy")).toContain(
      "img-src 'self' data: https://cdn.example.com;",
    );
    const css = await html(`/status/${page.slug}/style.css`);
    expect(css.response.headers.get("content-type")).toContain("text/css");
    expect(css.text).toStartWith(":root{--brand:#0f766e}");
    expect(css.text).toContain("prefers-color-scheme:dark");
  });

  test("a monitor in an active maintenance window shows Under maintenance, and so does the banner", async () => {
    const page = await pageWith();
    const monitor = await pushMonitor("db", ["up"]);
    await attach(page.id, monitor.id, { display_name: "Database" });
    maintenance.monitorIds = [monitor.id];
    try {
      const { text } = await html(`/status/${page.slug}`);
      expect(text).toContain('class="banner o-maintenance" role="status">Under maintenance<');
      expect(text).toContain('class="state s-maintenance">Under maintenance<');
      expect(text).toContain("Database upgrade &lt;b&gt;");
    } finally {
      maintenance.monitorIds = [];
    }
  });

  test("a delivery component shows its delivered share per day", async () => {
    const page = await pageWith();
    await callAs(server, owner, "POST", `${PATH}/${page.id}/components`, { bridge_id: "b1" });
    const data = (await apiCall(server, "GET", `/status/${page.slug}.json`)).body.data;
    const item = data.groups[0].items[0];
    expect(item).toMatchObject({
      kind: "bridge",
      name: "Order webhooks",
      status: "up",
      percent_90d: 75,
    });
    expect(item.days.at(-1)).toEqual({ date: today, percent: 75 });
    const { text } = await html(`/status/${page.slug}`);
    expect(text).toContain(`${today}: 75.00 % delivered`);
  });

  test("a custom domain's / is the page; the app's own host keeps the app", async () => {
    const domain = `status-${Date.now().toString(36)}.acme.example`;
    await pageWith({ custom_domain: domain });
    const own = await html("/", { host: `${domain}:8080` });
    expect(own.response.status).toBe(200);
    expect(own.text).toContain("<h1>Acme status</h1>");
    const app = await html("/", { host: "127.0.0.1" });
    expect(app.text).not.toContain("<h1>Acme status</h1>");
    const deeper = await html("/status", { host: domain });
    expect(deeper.text).not.toContain("<h1>Acme status</h1>");
  });
});

describe("the public page is safe to show anything", () => {
  test("every field is escaped: a <script> display name renders as text", async () => {
    const page = await pageWith({
      name: `<script>alert("name")</script>`,
      description: `"><img src=x onerror=alert(1)>`,
    });
    const monitor = await pushMonitor("m", ["up"]);
    await attach(page.id, monitor.id, { display_name: "<script>alert('x')</script>" });
    const { text } = await html(`/status/${page.slug}`);
    expect(text).not.toContain("<script");
    expect(text).not.toContain("<img src=x");
    expect(text).toContain("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
    expect(text).toContain("&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;");
    expect(unbalancedTags(text)).toEqual([]);
  });

  test("the page, its stylesheet and its 404 carry the UI's security headers (no inline script or style)", async () => {
    const page = await pageWith();
    for (const path of [`/status/${page.slug}`, `/status/${page.slug}/style.css`, "/status/nope"]) {
      const { response, text } = await html(path);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(text).not.toMatch(/<script|<style|\sstyle=/);
    }
  });

  test("the unknown-slug page and an empty page are well formed", async () => {
    const page = await pageWith();
    expect(unbalancedTags((await html(`/status/${page.slug}`)).text)).toEqual([]);
    expect(unbalancedTags((await html("/status/nope")).text)).toEqual([]);
    expect(unbalancedTags("<p><b></p>")).not.toEqual([]);
  });
});

describe("a custom domain never takes the app's own host", () => {
  test("with base_url set, its host is refused on save and never looked up at /", async () => {
    const own = await startTestServer({ config: { base_url: "http://weir.example.com" } });
    try {
      const admin = await signUp(own, { plan: "team" });
      const refused = await callAs(own, admin, "POST", PATH, {
        status_page: { name: "A", slug: "own-host", custom_domain: "weir.example.com" },
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors.custom_domain).toBeDefined();
      // Even a row that says so (written around the API) does not shadow the app.
      const page = await callAs(own, admin, "POST", PATH, {
        status_page: { name: "Shadow", slug: "own-host", custom_domain: "other.example.com" },
      });
      const shadow = "UPDATE status_pages SET custom_domain = 'weir.example.com' WHERE id = ";
      if (own.postgres) await own.postgres.sql.unsafe(`${shadow}$1`, [page.body.data.id]);
      else own.deps.db.sqlite.run(`${shadow}?`, [page.body.data.id]);
      const front = await fetch(`${own.url}/`, { headers: { host: "weir.example.com" } });
      expect(await front.text()).not.toContain("<h1>Shadow</h1>");
    } finally {
      await own.stop();
    }
  });
});
