import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { documentsAt as sinkDocumentsAt, webhookAlertRule } from "../test-utils/alert-rules.ts";
import { apiCall } from "../test-utils/api-call.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { API_KEY_EXPIRING_JOB } from "./alerts.api-keys.ts";

// Key events (decisions.md §15) through real rules, the real outbox and a local sink. The server
// trusts 127.0.0.1 as a proxy, so requests can come "from" any address with X-Forwarded-For.
const DAY = 86_400_000;
let server: TestServer;
let scheduler: ManualScheduler;
let owner: TestAccount;
const clock = createFakeClock(Date.UTC(2026, 3, 1));
const sink = startHttpSink();

beforeAll(async () => {
  scheduler = createManualScheduler();
  server = await startTestServer({
    clock,
    scheduler,
    config: { trusted_proxies: ["127.0.0.1/32"], jwt_ttl: 365 * DAY },
  });
  owner = await signUp(server, { plan: "team" });
  sink.answer(() => ({ status: 200 }));
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const rule = (condition: unknown, account: TestAccount = owner) =>
  webhookAlertRule(server, account, sink, condition, "Keys");

const documentsAt = (path: string) => sinkDocumentsAt(sink, path);

const delivered = (path: string, count: number) =>
  pollUntil(() => (documentsAt(path).length >= count ? documentsAt(path) : undefined), {
    what: `${count} alert(s) at ${path}`,
  });

const keysPath = (account: TestAccount) =>
  `/api/v1/organizations/${account.organizationId}/api-keys`;

async function makeKey(body: Record<string, unknown>, account = owner) {
  const answer = await apiCall(server, "POST", keysPath(account), {
    headers: account.headers,
    body: { name: "deploy bot", ...body },
  });
  expect(answer.status).toBe(201);
  return answer.body as { id: string; key: string };
}

describe("key event conditions", () => {
  test("api_key_created and api_key_revoked fire once per key, with the key's id, never the key", async () => {
    const created = await rule({ type: "api_key_created" });
    const revoked = await rule({ type: "api_key_revoked" });
    const { id, key } = await makeKey({ role: "member" });
    // Written with the key, before the answer: a crash after it loses no alert.
    const firings = await serverRows(
      server,
      "SELECT id FROM alert_firings WHERE rule_id = $1 AND issue_id = $2",
      [created.id, id],
    );
    expect(firings.length).toBe(1);
    const [alert] = await delivered(created.path, 1);
    expect(alert).toMatchObject({
      type: "api_key.created",
      title: "API key created: deploy bot",
      data: {
        test: false,
        alert_rule: { id: created.id, condition: { type: "api_key_created", value: null } },
        api_key: { id, name: "deploy bot", role: "member", expires_at: null },
      },
    });
    expect(
      JSON.stringify(sink.requests.map((r) => new TextDecoder().decode(r.body))),
    ).not.toContain(key);
    await apiCall(server, "DELETE", `${keysPath(owner)}/${id}`, { headers: owner.headers });
    const [gone] = await delivered(revoked.path, 1);
    expect(gone.data.api_key.id).toBe(id);
    const list = await callAs(server, owner, "GET", `/api/v1/alert-rules/${revoked.id}/alerts`);
    expect(list.body.data).toEqual([
      expect.objectContaining({ issue_id: null, api_key_id: id, test: false }),
    ]);
    // Another organization's keys are not this organization's news.
    const other = await signUp(server, { plan: "team" });
    await makeKey({}, other);
    await delivered(created.path, 1);
    expect(documentsAt(created.path)).toHaveLength(1);
  });

  test("api_key_denied_ip fires once per key and refused address", async () => {
    const denied = await rule({ type: "api_key_denied_ip" });
    const { id, key } = await makeKey({ allowed_ips: ["10.0.0.0/8"] });
    const from = (ip: string) =>
      apiCall(server, "GET", "/api/v1/endpoints", {
        headers: { "x-api-key": key, "x-forwarded-for": ip },
      });
    expect((await from("10.0.0.1")).status).toBe(200);
    for (const ip of ["203.0.113.5", "203.0.113.5", "198.51.100.1"]) {
      expect((await from(ip)).status).toBe(401);
    }
    const alerts = await delivered(denied.path, 2);
    expect(alerts.map((a) => a.data.ip).sort()).toEqual(["198.51.100.1", "203.0.113.5"]);
    expect(alerts.every((a) => a.data.api_key.id === id)).toBe(true);
    await from("203.0.113.5");
    await delivered(denied.path, 2);
    expect(documentsAt(denied.path)).toHaveLength(2);
  });

  test("a key tried from ever new addresses announces 10 of them, then 10 an hour: no flood of alerts or log lines", async () => {
    const denied = await rule({ type: "api_key_denied_ip" });
    const { id, key } = await makeKey({ allowed_ips: ["10.0.0.0/8"] });
    const from = (ip: string) =>
      apiCall(server, "GET", "/api/v1/endpoints", {
        headers: { "x-api-key": key, "x-forwarded-for": ip },
      });
    // A leaked key used from a whole IPv6 range: every address is new.
    for (let n = 1; n <= 40; n++)
      expect((await from(`2001:db8::${n.toString(16)}`)).status).toBe(401);
    await delivered(denied.path, 10);
    const logged = () => server.logs.filter((line) => line.includes(id)).length;
    expect(logged()).toBe(10);
    clock.advance(10 * 60_000);
    expect((await from("2001:db8::ffff")).status).toBe(401);
    await delivered(denied.path, 11);
    expect(documentsAt(denied.path)).toHaveLength(11);
    expect(logged()).toBe(11);
  });

  test("api_key_expiring {value: 7} fires once per key from the scheduled scan", async () => {
    const expiring = await rule({ type: "api_key_expiring", value: 7 });
    const soon = await makeKey({ name: "soon", expires_at: iso(clock.now() + 3 * DAY) });
    await makeKey({ name: "later", expires_at: iso(clock.now() + 20 * DAY) });
    await scheduler.run(API_KEY_EXPIRING_JOB);
    await scheduler.run(API_KEY_EXPIRING_JOB);
    const [alert] = await delivered(expiring.path, 1);
    expect(alert).toMatchObject({
      type: "api_key.expiring",
      title: "API key expires within 7 days: soon",
      data: { api_key: { id: soon.id, expires_at: iso(clock.now() + 3 * DAY) } },
    });
    // Two weeks on, "later" is within 7 days; "soon" has expired and is not told again.
    clock.advance(14 * DAY);
    await scheduler.run(API_KEY_EXPIRING_JOB);
    const both = await delivered(expiring.path, 2);
    expect(both.map((a) => a.data.api_key.name)).toEqual(["soon", "later"]);
  });

  test.each([
    [{ type: "api_key_expiring" }, "condition.value"],
    [{ type: "api_key_expiring", value: 0 }, "condition.value"],
    [{ type: "api_key_created", value: 3 }, "condition.value"],
  ])("%j → 422 naming %s", async (condition, field) => {
    const answer = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
      name: "bad",
      condition,
      channel: { type: "webhook", url: `${sink.url}/bad` },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([field]);
  });

  test("a key rule's test alert shows a sample key", async () => {
    const { id, path } = await rule({ type: "api_key_denied_ip" });
    const sent = await callAs(server, owner, "POST", `/api/v1/alert-rules/${id}/test`);
    expect(sent.status).toBe(202);
    const [alert] = await delivered(path, 1);
    expect(alert.title).toBe("[test] API key used from a refused address: Sample key");
    expect(alert.data.test).toBe(true);
  });
});

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
