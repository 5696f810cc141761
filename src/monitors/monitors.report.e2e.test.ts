import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const DAY = 24 * 3_600_000;
let server: TestServer;
let sink: HttpSink;
let clock: FakeClock;
let owner: TestAccount;
let monitorId: string;

beforeAll(async () => {
  clock = createFakeClock(); // 2026-01-01T00:00Z
  sink = startHttpSink();
  server = await startTestServer({ clock, scheduler: createManualScheduler() });
  const account = await signUp(server);
  owner = { ...account, headers: { authorization: `Bearer ${await account.createApiKey()}` } };
  let status = 200;
  sink.answer(() => ({ status }));
  const monitor = await createMonitorAs(server, owner, {
    name: "billing",
    type: "http",
    url: `${sink.url}/r`,
    interval_seconds: 60,
    paused: true,
  });
  monitorId = monitor.id;
  const check = async (answer: number) => {
    status = answer;
    await callAs(server, owner, "POST", `${MONITORS_PATH}/${monitorId}/check`);
  };
  // 1 January: two up, one down. 2 January: nothing. 3 January: two checks in maintenance, one up.
  await check(200);
  await check(200);
  await check(500);
  clock.advance(2 * DAY + 3_600_000);
  await callAs(server, owner, "POST", "/api/v1/maintenance-windows", {
    title: "Migration",
    monitor_ids: [monitorId],
    starts_at: "2026-01-03T00:00:00Z",
    ends_at: "2026-01-03T02:00:00Z",
  });
  await check(500);
  await check(500);
  clock.advance(3_600_000);
  await check(200);
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const report = (query: string) =>
  apiCall(server, "GET", `${MONITORS_PATH}/${monitorId}/report?${query}`, {
    headers: owner.headers,
  });

describe("SLA reports", () => {
  test("per UTC day and in total, from the daily rollups alone, maintenance left out of uptime", async () => {
    // Raw checks may be gone (retention): the report must not need them.
    await serverRows(server, "DELETE FROM monitor_checks WHERE monitor_id = $1", [monitorId]);
    const answer = await report("from=2026-01-01&to=2026-01-03");
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      from: "2026-01-01",
      to: "2026-01-03",
      days: [
        {
          date: "2026-01-01",
          uptime_percent: 66.67,
          downtime_minutes: 1,
          maintenance_minutes: 0,
          checks: 3,
        },
        {
          date: "2026-01-02",
          uptime_percent: null,
          downtime_minutes: 0,
          maintenance_minutes: 0,
          checks: 0,
        },
        {
          date: "2026-01-03",
          uptime_percent: 100,
          downtime_minutes: 0,
          maintenance_minutes: 2,
          checks: 3,
        },
      ],
      overall: { uptime_percent: 75, downtime_minutes: 1, maintenance_minutes: 2, checks: 6 },
    });
    // Without a range: the 30 days up to today.
    const recent = (await report("")).body.data;
    expect([recent.from, recent.to, recent.days.length]).toEqual(["2025-12-05", "2026-01-03", 30]);
  });

  test("csv: a header row, one row per day, an overall row, and a file name", async () => {
    const answer = await server.request(
      `${MONITORS_PATH}/${monitorId}/report?from=2026-01-01&to=2026-01-03&format=csv`,
      { headers: owner.headers },
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toStartWith("text/csv");
    expect(answer.headers.get("content-disposition")).toBe(
      `attachment; filename="uptime-${monitorId}-2026-01-01-2026-01-03.csv"`,
    );
    expect((await answer.text()).split("\r\n")).toEqual([
      "date,uptime_percent,downtime_minutes,maintenance_minutes,checks",
      "2026-01-01,66.67,1,0,3",
      "2026-01-02,,0,0,0",
      "2026-01-03,100,0,2,3",
      "overall,75,1,2,6",
      "",
    ]);
  });

  test("bad dates, ranges and formats are a 422 naming the parameter; another organization gets 404", async () => {
    const failed = async (query: string) => {
      const answer = await report(query);
      expect(answer.status).toBe(422);
      return Object.keys(answer.body.errors);
    };
    expect(await failed("from=2026-02-30&to=2026-03-01")).toEqual(["from"]);
    expect(await failed("from=2026-01-01&to=01/02/2026")).toEqual(["to"]);
    expect(await failed("from=2026-01-05&to=2026-01-01")).toEqual(["to"]);
    expect(await failed("from=2025-01-01&to=2026-02-05")).toEqual(["to"]);
    expect(await failed("from=2025-01-01&to=2026-01-01&format=xml")).toEqual(["format"]);
    expect((await report("from=2025-01-01&to=2026-02-04")).status).toBe(200); // 400 days
    const stranger = await signUp(server);
    const answer = await callAs(server, stranger, "GET", `${MONITORS_PATH}/${monitorId}/report`);
    expect(answer.status).toBe(404);
  });
});
