import { afterEach, describe, expect, test } from "bun:test";
import { createApp } from "../app.ts";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { checksOf, createMonitorAs, MONITORS_PATH, monitorWhen } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(config: Record<string, unknown> = {}) {
  const clock = createFakeClock();
  const sink: HttpSink = startHttpSink();
  const server: TestServer = await startTestServer({ clock, config });
  cleanups.push(
    () => sink.stop(),
    () => server.stop(),
  );
  return { clock, sink, server };
}

const sinkRequests = (sink: HttpSink, path: string) =>
  sink.requests.filter((r) => r.path === path).length;

describe("one scheduler for every monitor", () => {
  test("after its first check a monitor is checked once per interval, on its own slot", async () => {
    const { clock, sink, server } = await world();
    const owner = await signUp(server);
    const monitor = await createMonitorAs(server, owner, {
      name: "api",
      type: "http",
      url: `${sink.url}/a`,
      interval_seconds: 60,
    });
    await monitorWhen(server, owner, monitor.id, (m) => m.status === "up");
    for (let round = 2; round <= 4; round++) {
      clock.advance(60_000);
      await pollUntil(() => sinkRequests(sink, "/a") === round, { what: `check ${round}` });
    }
    clock.advance(30_000);
    await Bun.sleep(50);
    expect((await checksOf(server, owner, monitor.id)).length).toBeLessThanOrEqual(5);
  });

  test("a monitor created paused is checked as soon as it is resumed", async () => {
    const { sink, server } = await world();
    const owner = await signUp(server);
    const monitor = await createMonitorAs(server, owner, {
      name: "later",
      type: "http",
      url: `${sink.url}/later`,
      interval_seconds: 3600,
      paused: true,
    });
    await Bun.sleep(50);
    expect(sinkRequests(sink, "/later")).toBe(0);
    await callAs(server, owner, "PATCH", `${MONITORS_PATH}/${monitor.id}`, { paused: false });
    await monitorWhen(server, owner, monitor.id, (m) => m.status === "up");
  });

  test("a slow target holds only its own slot: others are checked meanwhile", async () => {
    const { sink, server } = await world();
    const owner = await signUp(server);
    sink.answer((r) => (r.path === "/slow" ? { status: 200, delayMs: 1500 } : { status: 200 }));
    const slow = await createMonitorAs(server, owner, {
      name: "slow",
      type: "http",
      url: `${sink.url}/slow`,
      timeout_seconds: 5,
    });
    const fast = await createMonitorAs(server, owner, {
      name: "fast",
      type: "http",
      url: `${sink.url}/fast`,
    });
    await monitorWhen(server, owner, fast.id, (m) => m.status === "up");
    const stillPending = await callAs(server, owner, "GET", `${MONITORS_PATH}/${slow.id}`);
    expect(stillPending.body.data.status).toBe("pending");
    await monitorWhen(server, owner, slow.id, (m) => m.status === "up");
  });

  test("when slots are contended each organization gets its share", async () => {
    const { sink, server } = await world({ monitor_concurrency: 2, monitor_per_organization: 1 });
    sink.answer((r) => (r.path === "/busy" ? { status: 200, delayMs: 1500 } : { status: 200 }));
    const busy = await signUp(server);
    const quiet = await signUp(server);
    for (let i = 0; i < 3; i++) {
      await createMonitorAs(server, busy, {
        name: `busy ${i}`,
        type: "http",
        url: `${sink.url}/busy`,
        timeout_seconds: 5,
      });
    }
    const other = await createMonitorAs(server, quiet, {
      name: "quiet",
      type: "http",
      url: `${sink.url}/quiet`,
    });
    await monitorWhen(server, quiet, other.id, (m) => m.status === "up");
    // The busy organization never had more than its one slot.
    expect(sinkRequests(sink, "/busy")).toBe(1);
  });

  test("a restart resumes each monitor's phase: no burst of overdue checks", async () => {
    const { clock, sink, server } = await world();
    const owner = await signUp(server, { plan: "enterprise" });
    const count = 12;
    for (let i = 0; i < count; i++) {
      await createMonitorAs(server, owner, {
        name: `m${i}`,
        type: "http",
        url: `${sink.url}/r`,
        interval_seconds: 600,
      });
    }
    await pollUntil(() => sinkRequests(sink, "/r") === count, { what: "first checks" });
    const first = server.weir;
    await first.stop();
    clock.advance(3_600_000); // the server was down for an hour: every slot was missed
    const restarted = createApp(server.deps);
    restarted.start({ port: 0, hostname: "127.0.0.1" });
    // The test server's own stop now stops the restarted app.
    first.stop = () => restarted.stop();
    await Bun.sleep(100);
    expect(sinkRequests(sink, "/r")).toBe(count);
    // Over one interval each monitor is checked once, at its own slot.
    const seen: number[] = [];
    for (let step = 0; step < 10; step++) {
      clock.advance(60_000);
      await pollUntil(() => sinkRequests(sink, "/r") >= count + seen.reduce((a, b) => a + b, 0), {
        what: "checks of this minute",
      });
      await Bun.sleep(20);
      seen.push(sinkRequests(sink, "/r") - count - seen.reduce((a, b) => a + b, 0));
    }
    expect(seen.reduce((a, b) => a + b, 0)).toBe(count);
    expect(Math.max(...seen)).toBeLessThan(count);
  });
});

describe("push monitors", () => {
  test("after a restart a push monitor gets a whole interval before a missing push counts", async () => {
    const { clock, server } = await world();
    const owner = await signUp(server);
    const monitor = await createMonitorAs(server, owner, {
      name: "cron",
      type: "push",
      interval_seconds: 60,
    });
    await server.request(new URL(monitor.push_url as string).pathname);
    await monitorWhen(server, owner, monitor.id, (m) => m.status === "up");
    const first = server.weir;
    await first.stop();
    clock.advance(600_000); // pushes sent meanwhile could not arrive
    const restarted = createApp(server.deps);
    restarted.start({ port: server.port, hostname: "127.0.0.1" });
    first.stop = () => restarted.stop();
    clock.advance(60_000);
    await Bun.sleep(50);
    expect(
      (await callAs(server, owner, "GET", `${MONITORS_PATH}/${monitor.id}`)).body.data.status,
    ).toBe("up");
    clock.advance(15_000);
    await monitorWhen(server, owner, monitor.id, (m) => m.status === "down");
  });

  test("up while pushed within the interval; a reported failure or a missed push is down", async () => {
    const { clock, server } = await world();
    const owner = await signUp(server);
    const monitor = await createMonitorAs(server, owner, {
      name: "nightly backup",
      type: "push",
      interval_seconds: 60,
    });
    const pushUrl = new URL(monitor.push_url as string);
    expect(pushUrl.pathname).toMatch(/^\/api\/push\//);
    const push = (query = "", method = "GET") =>
      server.request(`${pushUrl.pathname}${query}`, { method });

    const ok = await push();
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
    await monitorWhen(server, owner, monitor.id, (m) => m.status === "up");

    expect((await push("?status=down&msg=disk%20full", "POST")).status).toBe(200);
    await monitorWhen(server, owner, monitor.id, (m) => m.status === "down");
    expect((await checksOf(server, owner, monitor.id))[0]).toMatchObject({
      status: "down",
      error: "disk full",
    });

    await push("", "POST");
    await monitorWhen(server, owner, monitor.id, (m) => m.status === "up");
    clock.advance(50_000);
    await push();
    clock.advance(65_000); // within interval + grace of the last push
    await Bun.sleep(50);
    expect(
      (await callAs(server, owner, "GET", `${MONITORS_PATH}/${monitor.id}`)).body.data.status,
    ).toBe("up");
    clock.advance(10_000);
    const missed = await monitorWhen(server, owner, monitor.id, (m) => m.status === "down");
    expect(missed.uptime_24h).toBeLessThan(100);
    expect((await checksOf(server, owner, monitor.id))[0]?.error).toMatch(/no push/);

    const unknown = await server.request("/api/push/not-a-token");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "not_found" });
  });
});
