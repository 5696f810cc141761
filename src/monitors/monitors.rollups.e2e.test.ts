import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { checksOf, createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createMonitorsRoom, MONITORS_RETENTION_JOB } from "./monitors.room.ts";

const DAY = 24 * 3600 * 1000;
let server: TestServer;
let sink: HttpSink;
let clock: FakeClock;
let owner: TestAccount;
let scheduler: ManualScheduler;

beforeAll(async () => {
  clock = createFakeClock();
  sink = startHttpSink();
  // Jobs run when the test says: moving the clock a month does not fire a month of timers.
  scheduler = createManualScheduler();
  server = await startTestServer({ clock, scheduler });
  // An API key: login tokens expire as the fake clock moves days ahead.
  const account = await signUp(server, { plan: "team" });
  owner = { ...account, headers: { authorization: `Bearer ${await account.createApiKey()}` } };
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const read = async (id: string) =>
  (await callAs(server, owner, "GET", `${MONITORS_PATH}/${id}`)).body.data;
const checkNow = (id: string) => callAs(server, owner, "POST", `${MONITORS_PATH}/${id}/check`);

describe("rollups, retention and metrics", () => {
  test("uptime figures come from hourly and daily buckets, which outlive the raw checks", async () => {
    let status = 200;
    sink.answer(() => ({ status }));
    const monitor = await createMonitorAs(server, owner, {
      name: 'billing "eu"\\main',
      type: "http",
      url: `${sink.url}/u`,
      paused: true,
    });
    await checkNow(monitor.id);
    await checkNow(monitor.id);
    clock.advance(2 * DAY);
    status = 500;
    await checkNow(monitor.id);
    const mixed = await read(monitor.id);
    expect(mixed).toMatchObject({ uptime_24h: 0, uptime_7d: 66.67, uptime_30d: 66.67 });
    expect(typeof mixed.avg_response_ms).toBe("number");
    // A local sink answers within the first histogram slot (≤ 50 ms).
    expect(mixed.p95_response_ms).toBe(50);

    // The team plan keeps raw checks 30 days; the hourly sweep removes them, buckets stay.
    clock.advance(31 * DAY);
    expect(await checksOf(server, owner, monitor.id)).toHaveLength(3);
    await scheduler.run(MONITORS_RETENTION_JOB);
    expect(await checksOf(server, owner, monitor.id)).toHaveLength(0);
    const later = await read(monitor.id);
    expect(later).toMatchObject({ uptime_24h: null, uptime_7d: null, uptime_30d: null });
    expect(later.uptime_90d).toBe(66.67);

    // What status pages read: the daily buckets, oldest first, and the monitor in brief.
    const ports = createMonitorsRoom(server.deps, {
      guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
      resolveSecrets: async () => () => undefined,
      monitorChanged: () => {},
    }).ports;
    const days = await ports.dailyBuckets(monitor.id, 90);
    expect(days.map(({ checks, up, down }) => ({ checks, up, down }))).toEqual([
      { checks: 2, up: 2, down: 0 },
      { checks: 1, up: 0, down: 1 },
    ]);
    expect(days[1]?.start).toBe((days[0]?.start ?? 0) + 2 * DAY);
    expect(await ports.dailyBuckets(monitor.id, 30)).toEqual([]);
    expect(await ports.monitorSummary(owner.organizationId, monitor.id)).toMatchObject({
      id: monitor.id,
      status: later.status,
    });
    expect(await ports.monitorSummary("another-org", monitor.id)).toBeNull();
  });

  test("/metrics carries each monitor's state, last response time and check counts", async () => {
    sink.answer(() => ({ status: 200 }));
    const monitor = await createMonitorAs(server, owner, {
      name: 'web "front"',
      type: "http",
      url: `${sink.url}/m`,
      paused: true,
    });
    await checkNow(monitor.id);
    const text = await (await server.request("/metrics")).text();
    const labels = `monitor_id="${monitor.id}",monitor="web \\"front\\"",type="http"`;
    expect(text).toContain(`weir_monitor_up{${labels}} 0`); // paused
    expect(text).toMatch(new RegExp(`weir_monitor_response_ms\\{${escapeRegExp(labels)}\\} \\d+`));
    expect(text).toContain(`weir_monitor_checks_total{${labels},status="up"} 1`);
    await callAs(server, owner, "PATCH", `${MONITORS_PATH}/${monitor.id}`, { paused: false });
    const after = await (await server.request("/metrics")).text();
    expect(after).toContain(`weir_monitor_up{${labels}} 1`);
  });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
