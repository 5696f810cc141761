import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// The SLA report of a whole status page: its monitors together per UTC day, the worst one,
// maintenance, and the incidents of each day; from the daily rollups alone.
const PATH = "/api/v1/status-pages";
const clock = createFakeClock(); // 2026-01-01T00:00Z
let server: TestServer;
let sink: HttpSink;
let owner: TestAccount;
let account: TestAccount;
let pageId: string;

beforeAll(async () => {
  sink = startHttpSink();
  server = await startTestServer({ clock, scheduler: createManualScheduler() });
  account = await signUp(server, { plan: "team" });
  owner = { ...account, headers: { authorization: `Bearer ${await account.createApiKey()}` } };
  const answers = new Map<string, number>();
  sink.answer((request) => ({ status: answers.get(request.path) ?? 200 }));
  const monitor = async (name: string) =>
    createMonitorAs(server, owner, {
      name,
      type: "http",
      url: `${sink.url}/${name}`,
      interval_seconds: 60,
      paused: true,
    });
  const api = await monitor("api");
  const web = await monitor("=web");
  const check = async (id: string, name: string, status: number) => {
    answers.set(`/${name}`, status);
    await callAs(server, owner, "POST", `${MONITORS_PATH}/${id}/check`);
  };
  const page = await callAs(server, owner, "POST", PATH, {
    status_page: { name: "Acme", slug: "report-acme" },
  });
  pageId = page.body.data.id;
  for (const m of [api, web])
    await callAs(server, owner, "POST", `${PATH}/${pageId}/monitors/${m.id}`, {});
  // 1 January: api 2 up; web 1 up, 1 down. An incident opened and resolved that day.
  await check(api.id, "api", 200);
  await check(api.id, "api", 200);
  await check(web.id, "=web", 200);
  await check(web.id, "=web", 500);
  const incident = await callAs(server, owner, "POST", `${PATH}/${pageId}/incidents`, {
    title: "=Slow web",
    impact: "minor",
    status: "investigating",
    message: "Looking.",
  });
  clock.advance(3_600_000);
  await callAs(
    server,
    owner,
    "POST",
    `${PATH}/${pageId}/incidents/${incident.body.data.id}/updates`,
    {
      status: "resolved",
      message: "Fixed.",
    },
  );
  // 3 January: api 1 up and 1 check in maintenance.
  clock.set(Date.UTC(2026, 0, 3, 1));
  await callAs(server, owner, "POST", "/api/v1/maintenance-windows", {
    title: "Migration",
    monitor_ids: [api.id],
    starts_at: "2026-01-03T00:00:00Z",
    ends_at: "2026-01-03T02:00:00Z",
  });
  await check(api.id, "api", 500);
  clock.advance(2 * 3_600_000);
  await check(api.id, "api", 200);
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const report = (query: string, as: TestAccount = owner, id = pageId) =>
  apiCall(server, "GET", `${PATH}/${id}/report?${query}`, { headers: as.headers });

describe("status page SLA report", () => {
  test("per UTC day: the monitors together, the worst one, maintenance and the day's incidents", async () => {
    // Raw checks may be gone (retention): the report reads the daily rollups only.
    if (server.postgres) await server.postgres.sql`DELETE FROM monitor_checks`;
    else server.deps.db.sqlite.run("DELETE FROM monitor_checks");
    const answer = await report("from=2026-01-01&to=2026-01-03");
    expect(answer.status).toBe(200);
    const { days, overall, monitors } = answer.body.data;
    expect(monitors.map((m: { name: string }) => m.name).sort()).toEqual(["=web", "api"]);
    expect(days[0]).toMatchObject({
      date: "2026-01-01",
      uptime_percent: 75,
      downtime_minutes: 360,
      maintenance_minutes: 0,
      checks: 4,
      worst_monitor: { name: "=web", uptime_percent: 50 },
    });
    expect(days[0].incidents.map((i: { title: string }) => i.title)).toEqual(["=Slow web"]);
    expect(days[1]).toMatchObject({
      date: "2026-01-02",
      uptime_percent: null,
      checks: 0,
      incidents: [],
    });
    expect(days[2]).toMatchObject({
      date: "2026-01-03",
      uptime_percent: 100,
      maintenance_minutes: 720,
      checks: 1,
      worst_monitor: { name: "api", uptime_percent: 100 },
    });
    expect(overall).toMatchObject({ uptime_percent: 80, checks: 5, downtime_minutes: 360 });
  });

  test("csv: one row per day and an overall row; names cannot run as formulas", async () => {
    const answer = await server.request(
      `${PATH}/${pageId}/report?from=2026-01-01&to=2026-01-03&format=csv`,
      {
        headers: owner.headers,
      },
    );
    expect(answer.headers.get("content-type")).toContain("text/csv");
    const lines = (await answer.text()).trimEnd().split("\r\n");
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe("2026-01-01,75,360,0,4,'=web,50,'=Slow web");
    expect(lines[4]?.startsWith("overall,80,")).toBe(true);
  });

  test("validation as the monitor report's: 422 naming the parameter; 400 days at most", async () => {
    for (const [query, field] of [
      ["from=2026-13-01", "from"],
      ["to=yesterday", "to"],
      ["from=2026-01-05&to=2026-01-01", "to"],
      ["from=2024-01-01&to=2026-01-01", "to"],
      ["format=xml", "format"],
    ] as const) {
      const answer = await report(query);
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toContain(field);
    }
  });

  test("members read it; another organization's page is 404", async () => {
    // Logged in now, at the clock's current time.
    const member = await account.addMember("member");
    const stranger = await signUp(server, { plan: "team" });
    expect((await report("from=2026-01-01&to=2026-01-01", member)).status).toBe(200);
    expect((await report("from=2026-01-01&to=2026-01-01", stranger)).status).toBe(404);
  });
});
