import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import type { AuthPorts } from "../auth/auth.room.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { checksOf, createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createMonitorsRoom } from "./monitors.room.ts";

const HOUR = 3_600_000;
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface AlertDocument {
  type: string;
  data: { change: Record<string, unknown> };
}

const alertsAt = (sink: HttpSink) =>
  sink.requests
    .filter((r) => r.path === "/alerts")
    .map((r) => JSON.parse(new TextDecoder().decode(r.body)) as AlertDocument);

/**
 * A server on a fake clock (2026-01-01T00:00Z), down and up alert rules posting to a sink, and a
 * daily push monitor that has been pushed once: every check here is a push the test sends (no
 * scheduled check falls within the hours the tests move through).
 */
async function world() {
  const clock: FakeClock = createFakeClock();
  const sink = startHttpSink();
  const server: TestServer = await startTestServer({ clock });
  cleanups.push(
    () => sink.stop(),
    () => server.stop(),
  );
  const account = await signUp(server);
  // An API key: login tokens expire as the fake clock moves.
  const owner: TestAccount = {
    ...account,
    headers: { authorization: `Bearer ${await account.createApiKey()}` },
  };
  sink.answer(() => ({ status: 204 }));
  const ruleIds: string[] = [];
  for (const type of ["monitor_down", "monitor_up"]) {
    const rule = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
      name: type,
      condition: { type },
      channel: { type: "webhook", url: `${sink.url}/alerts` },
    });
    ruleIds.push(rule.body.data.id);
  }
  /**
   * The alerts at the sink once there are `count`, and every delivery is recorded: the clock
   * may move on only then (moved while an attempt is in flight, its lease would lapse and the
   * alert go out twice).
   */
  const alerted = (count: number, what: string) =>
    pollUntil(
      async () => {
        if (alertsAt(sink).length !== count) return undefined;
        for (const id of ruleIds) {
          const sent = await callAs(server, owner, "GET", `/api/v1/alert-rules/${id}/alerts`);
          const statuses = sent.body.data.map(
            (a: { delivery: { status: string } }) => a.delivery.status,
          );
          if (statuses.some((status: string) => status !== "delivered")) return undefined;
        }
        return alertsAt(sink);
      },
      { what },
    );
  const monitor = await createMonitorAs(server, owner, {
    name: "checkout",
    type: "push",
    interval_seconds: 86_400,
  });
  const pushPath = new URL(String(monitor.push_url)).pathname;
  /** One push: 503 reports a failure, 200 success; answers the check it stored. */
  const check = async (status: number) => {
    const query = status === 200 ? "" : `?status=down&msg=HTTP%20${status}`;
    expect((await apiCall(server, "GET", `${pushPath}${query}`)).status).toBe(200);
    return (await checksOf(server, owner, monitor.id))[0] as Record<string, unknown>;
  };
  await check(200);
  const read = async () =>
    (await callAs(server, owner, "GET", `${MONITORS_PATH}/${monitor.id}`)).body.data;
  const events = async () =>
    (await callAs(server, owner, "GET", `${MONITORS_PATH}/${monitor.id}/events`)).body.data.map(
      (e: { from: string; to: string }) => `${e.from}→${e.to}`,
    );
  const window = async (startHour: number, endHour: number) => {
    const answer = await callAs(server, owner, "POST", "/api/v1/maintenance-windows", {
      title: "Upgrade",
      monitor_ids: [monitor.id],
      starts_at: new Date(Date.UTC(2026, 0, 1, startHour)).toISOString(),
      ends_at: new Date(Date.UTC(2026, 0, 1, endHour)).toISOString(),
    });
    expect(answer.status).toBe(201);
  };
  return { clock, sink, server, owner, monitor, check, read, events, window, alerted };
}

describe("monitors in maintenance", () => {
  test("inside a window: status maintenance, checks kept but out of uptime, no alert until the window ends down", async () => {
    const { clock, sink, server, owner, monitor, check, read, events, window, alerted } =
      await world();
    await window(1, 2);
    clock.advance(HOUR);
    const first = await check(503);
    expect(first.maintenance).toBe(true);
    expect((await read()).status).toBe("maintenance");
    await check(503);
    await check(200); // a recovery inside the window
    await check(503); // and down again

    const metrics = await (await server.request("/metrics")).text();
    const labels = `monitor_id="${monitor.id}",monitor="checkout",type="push"`;
    expect(metrics).toContain(`weir_monitor_maintenance{${labels}} 1`);
    expect(metrics).toContain(`weir_monitor_checks_total{${labels},status="maintenance"} 4`);
    expect(metrics).toContain(`weir_monitor_checks_total{${labels},status="down"} 0`);

    clock.advance(HOUR); // 02:00: the window's end is not part of it
    await check(503);
    const [down] = await alerted(1, "the down alert as the window ends");
    expect(down?.type).toBe("monitor.down");
    expect(down?.data.change).toMatchObject({ from: "up", to: "down" });

    const after = await read();
    expect(after.status).toBe("down");
    // 1 up before, 4 in maintenance, 1 down after: uptime counts only the 2 outside.
    expect(after.uptime_24h).toBe(50);
    expect(await events()).toEqual(["maintenance→down", "up→maintenance", "pending→up"]);
    const flags = (await checksOf(server, owner, monitor.id)).map((c) => c.maintenance);
    expect(flags).toEqual([false, true, true, true, true, false]);
    expect(alertsAt(sink)).toHaveLength(1);

    // Status pages' day bars: the maintenance checks are counted apart, not as checks.
    const ports = createMonitorsRoom(server.deps, {
      guard: (() => new Elysia()) as unknown as AuthPorts["guard"],
      resolveSecrets: async () => () => undefined,
      monitorChanged: () => {},
    }).ports;
    const [today] = await ports.dailyBuckets(monitor.id, 1);
    expect(today).toMatchObject({ checks: 2, up: 1, down: 1, degraded: 0, maintenance: 4 });
  });

  test("a failure and recovery inside a window stay silent; one that began before it recovers with an alert as it ends", async () => {
    const { clock, check, read, events, window, alerted } = await world();
    await window(1, 2);
    await window(4, 5);
    clock.advance(HOUR);
    await check(503);
    await check(200);
    clock.advance(HOUR);
    await check(200);
    expect(await events()).toEqual(["maintenance→up", "up→maintenance", "pending→up"]);
    expect((await read()).status).toBe("up");

    clock.advance(HOUR); // 03:00: down outside any window, alerted at once
    await check(503);
    await alerted(1, "the down alert");
    clock.advance(HOUR); // 04:00: the second window
    await check(200);
    expect((await read()).status).toBe("maintenance");
    clock.advance(HOUR);
    await check(200);
    const alerts = await alerted(2, "the recovery alert as the window ends");
    expect(alerts.map((a) => a.type)).toEqual(["monitor.down", "monitor.up"]);
    expect(alerts[1]?.data.change).toMatchObject({
      from: "down",
      to: "up",
      downtime_seconds: 7200,
    });
  });
});
