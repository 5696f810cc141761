import { afterEach, describe, expect, test } from "bun:test";
import { createOutboundPolicy } from "../http/outbound/outbound.policy.ts";
import { createOutboundSender } from "../http/outbound/outbound.sender.ts";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { SELF_SIGNED_CERT, SELF_SIGNED_KEY } from "../test-utils/tls-fixture.ts";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface AlertDocument {
  type: string;
  title: string;
  text: string;
  data: { monitor: { id: string; name: string }; change: Record<string, unknown> };
}

const alertsAt = (sink: HttpSink) =>
  sink.requests
    .filter((r) => r.path === "/alerts")
    .map((r) => JSON.parse(new TextDecoder().decode(r.body)) as AlertDocument);

async function startWorld(options: Parameters<typeof startTestServer>[0] = {}) {
  const sink = startHttpSink();
  const server: TestServer = await startTestServer(options);
  cleanups.push(
    () => sink.stop(),
    () => server.stop(),
  );
  const owner = await signUp(server);
  const rule = async (condition: Record<string, unknown>) => {
    const answer = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
      name: `on ${condition.type}`,
      condition,
      channel: { type: "webhook", url: `${sink.url}/alerts` },
    });
    expect(answer.status).toBe(201);
    return answer.body.data;
  };
  return { sink, server, owner, rule };
}

describe("monitor alerts", () => {
  test("monitor_down and monitor_up fire once per state change, with the error, time and downtime", async () => {
    const clock = createFakeClock();
    const { sink, server, owner, rule } = await startWorld({ clock });
    let status = 200;
    sink.answer((r) => (r.path === "/alerts" ? { status: 204 } : { status }));
    const downRule = await rule({ type: "monitor_down" });
    expect(downRule.condition).toEqual({ type: "monitor_down" });
    await rule({ type: "monitor_up" });
    const monitor = await createMonitorAs(server, owner, {
      name: "checkout",
      type: "http",
      url: `${sink.url}/target`,
      paused: true,
    });
    const other = await createMonitorAs(server, owner, {
      name: "other",
      type: "http",
      url: `${sink.url}/target`,
      paused: true,
    });
    const scoped = await rule({ type: "monitor_down", monitor_ids: [other.id] });
    expect(scoped.condition.monitor_ids).toEqual([other.id]);
    const check = () => callAs(server, owner, "POST", `${MONITORS_PATH}/${monitor.id}/check`);

    await check(); // pending → up: no rule hears it
    status = 503;
    await check();
    await check(); // still down: no second alert
    const [down] = await pollUntil(() => alertsAt(sink).length === 1 && alertsAt(sink), {
      what: "the down alert",
    });
    expect(down?.type).toBe("monitor.down");
    expect(down?.title).toBe("Monitor down: checkout");
    expect(down?.data.monitor.id).toBe(monitor.id);
    expect(down?.data.change).toMatchObject({ from: "up", to: "down" });
    expect(String(down?.data.change.reason)).toContain("503");

    clock.advance(90_000);
    status = 200;
    await check();
    const alerts = await pollUntil(() => alertsAt(sink).length === 2 && alertsAt(sink), {
      what: "the recovery alert",
    });
    expect(alerts[1]?.type).toBe("monitor.up");
    expect(alerts[1]?.data.change).toMatchObject({ from: "down", to: "up", downtime_seconds: 90 });
    expect(alerts[1]?.text).toContain("Down for 90 s");
    await Bun.sleep(50);
    expect(alertsAt(sink)).toHaveLength(2);
  });

  test("tls_expiring fires once when an https monitor's certificate is within the rule's days", async () => {
    // The test certificate expires on 2126-10-31: the clock stands a few days before.
    const clock = createFakeClock(Date.UTC(2126, 9, 26));
    const policy = createOutboundPolicy({ deny: [], allow: [] });
    const outbound = createOutboundSender({ policy, timeoutMs: 5000, trustedCa: SELF_SIGNED_CERT });
    const { sink, server, owner, rule } = await startWorld({ clock, outbound });
    const https = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT },
      fetch: () => new Response("ok"),
    });
    cleanups.push(() => https.stop(true));
    await rule({ type: "tls_expiring", value: 7 });
    const monitor = await createMonitorAs(server, owner, {
      name: "shop tls",
      type: "http",
      url: `https://localhost:${https.port}/`,
      paused: true,
    });
    const first = await callAs(server, owner, "POST", `${MONITORS_PATH}/${monitor.id}/check`);
    expect(first.body.data).toMatchObject({ status: "up", tls_days_remaining: 5 });
    await callAs(server, owner, "POST", `${MONITORS_PATH}/${monitor.id}/check`);
    const [alert] = await pollUntil(() => alertsAt(sink).length === 1 && alertsAt(sink), {
      what: "the certificate alert",
    });
    expect(alert?.type).toBe("monitor.tls_expiring");
    expect(alert?.data.change).toMatchObject({ tls_days_remaining: 5 });
    await Bun.sleep(50);
    expect(alertsAt(sink)).toHaveLength(1);
  });

  test("a monitor rule's test alert is a sample monitor change, marked as a test", async () => {
    const { sink, server, owner, rule } = await startWorld();
    sink.answer(() => ({ status: 204 }));
    const created = await rule({ type: "monitor_up" });
    const sent = await callAs(server, owner, "POST", `/api/v1/alert-rules/${created.id}/test`);
    expect(sent.status).toBeLessThan(300);
    const [alert] = await pollUntil(() => alertsAt(sink).length === 1 && alertsAt(sink), {
      what: "the test alert",
    });
    expect(alert?.type).toBe("monitor.up");
    expect(alert?.title).toStartWith("[test] Monitor up:");
    expect(alert?.data.change).toMatchObject({ from: "down", to: "up" });
  });

  test("ntfy and gotify channels get the down alert, tokens filled in from secrets", async () => {
    const { sink, server, owner } = await startWorld();
    let status = 200;
    sink.answer((r) => (r.path === "/target" ? { status } : { status: 200 }));
    await callAs(server, owner, "POST", "/api/v1/secrets", { name: "PUSH_TOKEN", value: "tk_abc" });
    for (const channel of [
      {
        type: "ntfy",
        server_url: `${sink.url}/ntfy`,
        topic: "ops-alerts",
        token: "{{PUSH_TOKEN}}",
      },
      { type: "gotify", server_url: `${sink.url}/gotify`, token: "{{PUSH_TOKEN}}" },
    ]) {
      const answer = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
        name: channel.type,
        condition: { type: "monitor_down" },
        channel,
      });
      expect(answer.status).toBe(201);
      expect(answer.body.data.channel.token).toBe("{{PUSH_TOKEN}}");
    }
    const bad = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
      name: "bad",
      condition: { type: "monitor_down" },
      channel: { type: "ntfy", server_url: "not a url", topic: "no spaces allowed" },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["channel.server_url", "channel.topic"]);
    const monitor = await createMonitorAs(server, owner, {
      name: "api",
      type: "http",
      url: `${sink.url}/target`,
      paused: true,
    });
    status = 500;
    await callAs(server, owner, "POST", `${MONITORS_PATH}/${monitor.id}/check`);
    const ntfy = await pollUntil(() => sink.requests.find((r) => r.path === "/ntfy/"), {
      what: "the ntfy publish",
    });
    expect(ntfy.headers.get("authorization")).toBe("Bearer tk_abc");
    expect(JSON.parse(new TextDecoder().decode(ntfy.body))).toMatchObject({
      topic: "ops-alerts",
      title: "Monitor down: api",
      tags: ["monitor.down"],
    });
    const gotify = await pollUntil(() => sink.requests.find((r) => r.path === "/gotify/message"), {
      what: "the gotify message",
    });
    expect(gotify.headers.get("x-gotify-key")).toBe("tk_abc");
    const message = JSON.parse(new TextDecoder().decode(gotify.body));
    expect(message.title).toBe("Monitor down: api");
    expect(message.message).toContain("status 500");
  });

  test("monitor_ids is refused on issue conditions; tls_expiring needs its days", async () => {
    const { server, owner } = await startWorld();
    const post = (condition: Record<string, unknown>) =>
      callAs(server, owner, "POST", "/api/v1/alert-rules", {
        name: "r",
        condition,
        channel: { type: "webhook", url: "http://127.0.0.1:9/alerts" },
      });
    const issue = await post({ type: "issue_created", monitor_ids: ["x"] });
    expect(issue.status).toBe(422);
    expect(Object.keys(issue.body.errors)).toContain("condition.monitor_ids");
    const tls = await post({ type: "tls_expiring" });
    expect(tls.status).toBe(422);
    expect(Object.keys(tls.body.errors)).toContain("condition.value");
  });
});
