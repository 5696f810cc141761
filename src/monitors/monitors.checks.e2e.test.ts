import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import {
  checksOf,
  createMonitorAs,
  MONITORS_PATH,
  monitorWhen,
  startDnsResponder,
} from "../test-utils/monitors.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let sink: HttpSink;
let owner: TestAccount;
let dns: Awaited<ReturnType<typeof startDnsResponder>>;

beforeAll(async () => {
  sink = startHttpSink();
  dns = await startDnsResponder({
    "app.example.test": { A: ["10.1.2.3"], TXT: ["v=spf1 -all"] },
  });
  server = await startTestServer({ config: { dns_resolver: dns.address } });
  owner = await signUp(server, { plan: "enterprise" });
  await callAs(server, owner, "POST", "/api/v1/secrets", {
    name: "HEALTH_TOKEN",
    value: "s3cr3t-v",
  });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
  await dns.stop();
});

const checkNow = async (id: string) => {
  const answer = await callAs(server, owner, "POST", `${MONITORS_PATH}/${id}/check`);
  expect(answer.status).toBe(200);
  return answer.body.data;
};
const http = (path: string, extra: Record<string, unknown> = {}) => ({
  name: path,
  type: "http",
  url: `${sink.url}${path}`,
  interval_seconds: 3600,
  ...extra,
});

describe("http checks", () => {
  test("a new monitor is checked at once: up, with the check, its figures and the secret sent", async () => {
    sink.answer(() => ({ status: 200, body: "all good" }));
    const monitor = await createMonitorAs(
      server,
      owner,
      http("/first", { headers: { authorization: "Bearer {{HEALTH_TOKEN}}" } }),
    );
    const up = await monitorWhen(server, owner, monitor.id, (m) => m.status === "up");
    expect(up.uptime_24h).toBe(100);
    expect(up.uptime_90d).toBe(100);
    expect(typeof up.avg_response_ms).toBe("number");
    expect(up.last_checked_at).not.toBeNull();
    const [check] = await checksOf(server, owner, monitor.id);
    expect(check).toMatchObject({
      monitor_id: monitor.id,
      status: "up",
      status_code: 200,
      error: null,
    });
    const seen = sink.requests.find((r) => r.path === "/first");
    expect(seen?.headers.get("authorization")).toBe("Bearer s3cr3t-v");
  });

  test("POST …/check runs one now; status ranges, keyword, JSON path and slowness decide", async () => {
    sink.answer((r) =>
      r.path === "/json"
        ? { status: 200, body: JSON.stringify({ data: { state: "ok", load: 3 } }) }
        : r.path === "/slow"
          ? { status: 200, body: "fine", delayMs: 60 }
          : { status: r.path === "/moved" ? 301 : 200, body: "welcome: maintenance off" },
    );
    const cases: [Record<string, unknown>, string, RegExp | null][] = [
      [http("/moved", { expected_status: "200-299,301" }), "up", null],
      [http("/moved"), "down", /status 301/],
      [http("/k", { keyword: "welcome" }), "up", null],
      [http("/k", { keyword: "goodbye" }), "down", /not found/],
      [http("/k", { keyword: "maintenance on", keyword_absent: true }), "up", null],
      [http("/k", { keyword: "maintenance off", keyword_absent: true }), "down", /found/],
      [http("/json", { json_path: "data.state", json_expected: "ok" }), "up", null],
      [http("/json", { json_path: "data.load", json_expected: { $lt: 2 } }), "down", /data.load/],
      [http("/json", { json_path: "$.data.load", json_expected: { $gte: 3 } }), "up", null],
      [http("/slow", { degraded_after_ms: 20 }), "degraded", /over 20 ms/],
    ];
    for (const [body, status, error] of cases) {
      const monitor = await createMonitorAs(server, owner, { ...body, paused: true });
      const check = await checkNow(monitor.id);
      expect({ body, status: check.status }).toEqual({ body, status });
      if (error) expect(check.error).toMatch(error);
      else expect(check.error).toBeNull();
    }
  });

  test("down only after `retries` consecutive failures; the state changes are a timeline", async () => {
    let status = 200;
    sink.answer(() => ({ status }));
    const monitor = await createMonitorAs(
      server,
      owner,
      http("/flaky", { retries: 1, paused: true }),
    );
    const state = async () =>
      (await callAs(server, owner, "GET", `${MONITORS_PATH}/${monitor.id}`)).body.data;
    await checkNow(monitor.id);
    await callAs(server, owner, "PATCH", `${MONITORS_PATH}/${monitor.id}`, { paused: false });
    expect((await state()).status).toBe("up");
    status = 503;
    expect((await checkNow(monitor.id)).status).toBe("down");
    expect((await state()).status).toBe("up");
    await checkNow(monitor.id);
    expect((await state()).status).toBe("down");
    status = 200;
    await checkNow(monitor.id);
    const after = await state();
    expect(after.status).toBe("up");
    expect(after.uptime_24h).toBe(50);
    const events = await callAs(server, owner, "GET", `${MONITORS_PATH}/${monitor.id}/events`);
    expect(events.body.data.map((e: { from: string; to: string }) => `${e.from}>${e.to}`)).toEqual([
      "down>up",
      "up>down",
      "pending>up",
    ]);
    expect(events.body.data[1].reason).toMatch(/503/);
    const checks = await callAs(
      server,
      owner,
      "GET",
      `${MONITORS_PATH}/${monitor.id}/checks?page_size=2`,
    );
    expect(checks.body).toMatchObject({ page: 1, page_size: 2, total: 4 });
    expect(checks.body.data.map((c: { status: string }) => c.status)).toEqual(["up", "down"]);
  });
});

describe("secrets in checks", () => {
  test("a failing check names the secret, never its value; an unknown secret fails the check", async () => {
    await callAs(server, owner, "POST", "/api/v1/secrets", {
      name: "PRIVATE_HOST",
      value: "private-weir-host.invalid",
    });
    const monitor = await createMonitorAs(
      server,
      owner,
      http("/x", { url: "http://{{PRIVATE_HOST}}/health", timeout_seconds: 3, paused: true }),
    );
    const check = await checkNow(monitor.id);
    expect(check.status).toBe("down");
    expect(check.error).not.toContain("private-weir-host");
    const events = await callAs(server, owner, "GET", `${MONITORS_PATH}/${monitor.id}/events`);
    expect(JSON.stringify(events.body)).not.toContain("private-weir-host");

    const unknown = await createMonitorAs(
      server,
      owner,
      http("/x", { url: `${sink.url}/x?key={{NO_SUCH_SECRET}}`, paused: true }),
    );
    expect((await checkNow(unknown.id)).error).toBe("missing_secret: NO_SUCH_SECRET");
  });
});

describe("tcp and dns checks", () => {
  test("tcp is up while something accepts on host:port, down when nothing does", async () => {
    const listener = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { data() {}, open() {} },
    });
    const open = await createMonitorAs(server, owner, {
      name: "db",
      type: "tcp",
      url: `tcp://127.0.0.1:${listener.port}`,
      paused: true,
    });
    const up = await checkNow(open.id);
    expect(up.status).toBe("up");
    expect(typeof up.response_time_ms).toBe("number");
    const port = listener.port;
    listener.stop(true);
    const closed = await createMonitorAs(server, owner, {
      name: "db gone",
      type: "tcp",
      url: `tcp://127.0.0.1:${port}`,
      paused: true,
    });
    const down = await checkNow(closed.id);
    expect(down.status).toBe("down");
    expect(down.error).toMatch(/connection_refused|refused/i);
  });

  test("dns asks the configured resolver: records present, expected among them, or not", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ hostname: "app.example.test" }, "up"],
      [{ hostname: "app.example.test", expected: "10.1.2.3" }, "up"],
      [{ hostname: "app.example.test", expected: "10.9.9.9" }, "down"],
      [{ hostname: "app.example.test", record_type: "TXT", expected: "v=spf1 -all" }, "up"],
      [{ hostname: "missing.example.test" }, "down"],
    ];
    for (const [settings, status] of cases) {
      const monitor = await createMonitorAs(server, owner, {
        name: "dns",
        type: "dns",
        timeout_seconds: 2,
        paused: true,
        ...settings,
      });
      const check = await checkNow(monitor.id);
      expect({ settings, status: check.status }).toEqual({ settings, status });
    }
  });
});
