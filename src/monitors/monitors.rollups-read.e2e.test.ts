import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
let server: TestServer;
let sink: HttpSink;
let clock: FakeClock;
let owner: TestAccount;

beforeAll(async () => {
  clock = createFakeClock();
  sink = startHttpSink();
  server = await startTestServer({ clock, scheduler: createManualScheduler() });
  const account = await signUp(server, { plan: "team" });
  // An API key: login tokens expire as the fake clock moves days ahead.
  owner = { ...account, headers: { authorization: `Bearer ${await account.createApiKey()}` } };
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

interface Bucket {
  start: string;
  checks: number;
  up: number;
  down: number;
  avg_response_ms: number | null;
}
const rollups = async (id: string, range?: string) => {
  const answer = await callAs(
    server,
    owner,
    "GET",
    `${MONITORS_PATH}/${id}/rollups${range ? `?range=${range}` : ""}`,
  );
  return { status: answer.status, data: answer.body.data as Bucket[], body: answer.body };
};

describe("reading a monitor's rollups", () => {
  test("hourly buckets for 24 h and 7 d, daily ones for 30 d; the list carries a 24 h sparkline", async () => {
    let status = 200;
    sink.answer(() => ({ status }));
    const monitor = await createMonitorAs(server, owner, {
      name: "charted",
      type: "http",
      url: `${sink.url}/c`,
      paused: true,
    });
    const checkNow = () => callAs(server, owner, "POST", `${MONITORS_PATH}/${monitor.id}/check`);
    await checkNow();
    clock.advance(3 * DAY);
    status = 500;
    await checkNow();
    await checkNow();

    const day = await rollups(monitor.id);
    expect(day.status).toBe(200);
    expect(day.data.map(({ checks, down }) => ({ checks, down }))).toEqual([
      { checks: 2, down: 2 },
    ]);
    expect(typeof day.data[0]?.avg_response_ms).toBe("number");
    const week = await rollups(monitor.id, "7d");
    expect(week.data.map((b) => b.checks)).toEqual([1, 2]);
    expect(Date.parse(week.data[1]?.start ?? "") - Date.parse(week.data[0]?.start ?? "")).toBe(
      3 * DAY,
    );
    const month = await rollups(monitor.id, "30d");
    expect(month.data.map((b) => ({ checks: b.checks, up: b.up }))).toEqual([
      { checks: 1, up: 1 },
      { checks: 2, up: 0 },
    ]);

    const list = await callAs(server, owner, "GET", MONITORS_PATH);
    const row = (list.body.data as { id: string; response_sparkline: (number | null)[] }[]).find(
      (m) => m.id === monitor.id,
    );
    expect(row?.response_sparkline).toHaveLength(24);
    expect(row?.response_sparkline.at(-1)).toBeNumber();
    expect(row?.response_sparkline.slice(0, 23).every((v) => v === null)).toBe(true);
  });

  test("an unknown range is a 422 naming it; another organization's monitor is 404", async () => {
    const monitor = await createMonitorAs(server, owner, {
      name: "ranged",
      type: "push",
      interval_seconds: 60,
    });
    const bad = await rollups(monitor.id, "1y");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors ?? {})).toContain("range");
    const stranger = await signUp(server, { plan: "team" });
    const key = await stranger.createApiKey();
    const theirs = await callAs(
      server,
      { ...stranger, headers: { authorization: `Bearer ${key}` } },
      "GET",
      `${MONITORS_PATH}/${monitor.id}/rollups`,
    );
    expect(theirs.status).toBe(404);
  });
});
