import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createMonitorAs } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const clock = createFakeClock(Date.UTC(2026, 5, 1, 12));
let server: TestServer;
let owner: { headers: Record<string, string> };
let member: TestAccount;
let stranger: TestAccount;
const PATH = "/api/v1/status-pages";
const DAY_MS = 86_400_000;

beforeAll(async () => {
  // No job runs on its own: days pass on the clock without firing every tick on the way.
  server = await startTestServer({ clock, scheduler: createManualScheduler() });
  const account = await signUp(server, { plan: "team" });
  // A key, not a login token: the clock moves by days here and keys do not expire.
  owner = { headers: { "x-api-key": await account.createApiKey() } };
  member = await account.addMember("member");
  stranger = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

let counter = 0;
async function newPage() {
  const slug = `inc-${++counter}`;
  const answer = await callAs(server, owner, "POST", PATH, { status_page: { name: "Acme", slug } });
  return answer.body.data as { id: string; slug: string };
}
const open = (pageId: string, body: Record<string, unknown>) =>
  callAs(server, owner, "POST", `${PATH}/${pageId}/incidents`, body);
const pageHtml = async (slug: string) => (await server.request(`/status/${slug}`)).text();

describe("incidents", () => {
  test("open 201 {data: incident}; updates walk to resolved and set resolved_at; list newest first; delete 204", async () => {
    const page = await newPage();
    const monitor = await createMonitorAs(server, owner as TestAccount, {
      name: "API",
      type: "push",
      interval_seconds: 60,
    });
    const opened = await open(page.id, {
      title: "Slow API",
      impact: "minor",
      status: "investigating",
      message: "Looking into it.",
      monitor_ids: [monitor.id],
    });
    expect(opened.status).toBe(201);
    const incident = opened.body.data;
    expect(incident).toMatchObject({
      status_page_id: page.id,
      title: "Slow API",
      impact: "minor",
      status: "investigating",
      monitor_ids: [monitor.id],
      resolved_at: null,
      created_at: "2026-06-01T12:00:00.000Z",
    });
    expect(incident.updates).toEqual([
      {
        id: expect.any(String),
        status: "investigating",
        message: "Looking into it.",
        created_at: "2026-06-01T12:00:00.000Z",
      },
    ]);
    const url = `${PATH}/${page.id}/incidents/${incident.id}/updates`;
    for (const status of ["identified", "monitoring"]) {
      clock.advance(60_000);
      const step = await callAs(server, owner, "POST", url, { status, message: `Now ${status}.` });
      expect(step.status).toBe(201);
      expect(step.body.data).toMatchObject({ status, resolved_at: null });
    }
    clock.advance(60_000);
    const resolved = await callAs(server, owner, "POST", url, {
      status: "resolved",
      message: "Fixed.",
    });
    expect(resolved.body.data).toMatchObject({
      status: "resolved",
      resolved_at: "2026-06-01T12:03:00.000Z",
    });
    expect(resolved.body.data.updates.map((u: { status: string }) => u.status)).toEqual([
      "investigating",
      "identified",
      "monitoring",
      "resolved",
    ]);

    clock.advance(60_000);
    const second = (
      await open(page.id, {
        title: "Second",
        impact: "none",
        status: "investigating",
        message: "m",
      })
    ).body.data;
    const list = await callAs(server, member, "GET", `${PATH}/${page.id}/incidents`);
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([second.id, incident.id]);
    expect(
      (await callAs(server, owner, "DELETE", `${PATH}/${page.id}/incidents/${second.id}`)).status,
    ).toBe(204);
    expect(
      (await callAs(server, owner, "DELETE", `${PATH}/${page.id}/incidents/${second.id}`)).status,
    ).toBe(404);
  });

  test.each([
    [{ impact: "minor", status: "investigating", message: "m" }, "title"],
    [{ title: "t", impact: "huge", status: "investigating", message: "m" }, "impact"],
    [{ title: "t", impact: "minor", status: "sleeping", message: "m" }, "status"],
    [{ title: "t", impact: "minor", status: "investigating" }, "message"],
    [
      { title: "t", impact: "minor", status: "investigating", message: "m", monitor_ids: ["nope"] },
      "monitor_ids",
    ],
  ])("%j → 422 errors.%s", async (body, field) => {
    const page = await newPage();
    const answer = await open(page.id, body);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toContain(field);
  });

  test("another organization's monitor cannot be named; members cannot write; another organization's page is 404", async () => {
    const page = await newPage();
    const theirs = await createMonitorAs(server, stranger, {
      name: "X",
      type: "push",
      interval_seconds: 60,
    });
    const body = { title: "t", impact: "minor", status: "investigating", message: "m" };
    expect((await open(page.id, { ...body, monitor_ids: [theirs.id] })).status).toBe(422);
    expect(
      (await callAs(server, member, "POST", `${PATH}/${page.id}/incidents`, body)).status,
    ).toBe(403);
    expect(
      (await callAs(server, stranger, "POST", `${PATH}/${page.id}/incidents`, body)).status,
    ).toBe(404);
    expect((await callAs(server, stranger, "GET", `${PATH}/${page.id}/incidents`)).status).toBe(
      404,
    );
  });

  test("the page shows open incidents above the monitors and resolved ones for 14 days; the JSON too", async () => {
    const page = await newPage();
    const monitor = await createMonitorAs(server, owner as TestAccount, {
      name: "API",
      type: "push",
      interval_seconds: 60,
    });
    await callAs(server, owner, "POST", `${PATH}/${page.id}/monitors/${monitor.id}`, {});
    const incident = (
      await open(page.id, {
        title: "Outage <b>",
        impact: "critical",
        status: "identified",
        message: "Disk <full>",
      })
    ).body.data;
    let html = await pageHtml(page.slug);
    expect(html).toContain("Current incidents");
    expect(html).toContain("Major outage");
    expect(html.indexOf("Outage &lt;b&gt;")).toBeLessThan(html.indexOf('class="item"'));
    expect(html).toContain("Disk &lt;full&gt;");
    const json = (await apiCall(server, "GET", `/status/${page.slug}.json`)).body.data;
    expect(json.incidents.active.map((i: { id: string }) => i.id)).toEqual([incident.id]);

    await callAs(server, owner, "POST", `${PATH}/${page.id}/incidents/${incident.id}/updates`, {
      status: "resolved",
      message: "Back.",
    });
    html = await pageHtml(page.slug);
    expect(html).not.toContain("Current incidents");
    expect(html).toContain("Past incidents");
    expect(html).toContain("Outage &lt;b&gt;");
    clock.advance(15 * DAY_MS);
    html = await pageHtml(page.slug);
    expect(html).not.toContain("Outage &lt;b&gt;");
  });
});
