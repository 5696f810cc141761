import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createIssuesWorld, destinationOf, type IssuesWorld } from "../issues/issues.test-world.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { documentsAt as sinkDocumentsAt, webhookAlertRule } from "../test-utils/alert-rules.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock, type FakeClock } from "../test-utils/fake-clock.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler, type ManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { onStore } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { OPEN_ISSUES_PER_ORGANIZATION } from "./alerts.firing.ts";
import { OPEN_FOR_DAYS_JOB } from "./alerts.room.ts";

// Rules fed by real failures: events ingested through a bridge whose destination fails, grouped
// by the issues room inside the attempt's transaction, alerts sent through the real outbox to a
// local sink. Time is a fake clock, so open_for_days is exact and no retry fires by itself.
const DAY = 86_400_000;
let server: TestServer;
let owner: TestAccount;
let world: IssuesWorld;
let clock: FakeClock;
let scheduler: ManualScheduler;
const sink = startHttpSink();

beforeAll(async () => {
  clock = createFakeClock(Date.UTC(2026, 10, 2));
  scheduler = createManualScheduler();
  server = await startTestServer({ clock, scheduler });
  owner = await freshAccount();
  world = createIssuesWorld(server, owner);
  sink.answer((request) =>
    request.path.startsWith("/status/500") ? { status: 500, body: "down" } : { status: 200 },
  );
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

/** A rule whose alerts arrive at the sink under `/alerts/<n>`; returns its id and path. */
const rule = (condition: unknown, account: TestAccount = owner) =>
  webhookAlertRule(server, account, sink, condition, "Rule");

const documentsAt = (path: string) => sinkDocumentsAt(sink, path);

/**
 * An organization of its own, acting with an API key (a login token would expire as days pass).
 * Enterprise: hundreds of ingests on a fake clock stay within its ingest rate limit.
 */
async function freshAccount(): Promise<TestAccount> {
  const account = await signUp(server, { plan: "enterprise" });
  return { ...account, headers: { authorization: `Bearer ${await account.createApiKey()}` } };
}

/** The rule's alerts as the API lists them, once `count` have been delivered. */
const deliveredAlerts = (ruleId: string, count: number, account: TestAccount = owner) =>
  pollUntil(
    async () => {
      const list = await callAs(server, account, "GET", `/api/v1/alert-rules/${ruleId}/alerts`);
      const done = list.body.data.filter(
        (a: { delivery: { status: string } }) => a.delivery?.status === "delivered",
      );
      return done.length === count && list.body.total === count ? list.body.data : undefined;
    },
    { what: `${count} alert(s) of rule ${ruleId} delivered` },
  );

/** Ingests `count` events, 50 at a time. */
async function ingestMany(route: Parameters<IssuesWorld["ingest"]>[0], count: number) {
  for (let sent = 0; sent < count; sent += 50) {
    const batch = Math.min(50, count - sent);
    await Promise.all(
      Array.from({ length: batch }, (_, i) => world.ingest(route, { n: sent + i })),
    );
  }
}

describe("500 failures, one alert", () => {
  test("500 failures of one kind are one issue counted 500 times, and each rule alerts once", async () => {
    const created = await rule({ type: "issue_created" });
    const threshold = await rule({ type: "occurrence_threshold", value: 250 });
    const urgent = await rule({ type: "high_priority_destination" });
    // A missing secret fails every delivery before anything is sent: no breaker gets involved.
    const route = await world.route([
      { name: "Ledger", url: "{{LEDGER_URL_NOT_SET}}", priority: "high" },
    ]);
    await ingestMany(route, 500);
    const issue = await world.issueWith(destinationOf(route), (i) => i.occurrence_count === 500);
    expect(issue).toMatchObject({
      error_type: "authentication_error",
      error_code: "missing_secret",
    });
    for (const { id, path } of [created, threshold, urgent]) {
      const [alert] = await deliveredAlerts(id, 1);
      expect(alert).toMatchObject({ issue_id: issue.id, test: false });
      expect(documentsAt(path)).toHaveLength(1);
    }
    const [document] = documentsAt(threshold.path);
    expect(document.type).toBe("issue.occurrence_threshold");
    expect(document.data.issue).toMatchObject({ id: issue.id, occurrence_count: 250 });
    expect(document.data.destination).toMatchObject({ name: "Ledger", priority: "high" });
    expect(document.data.bridge.name).toBe(route.name);
  });

  test("500 HTTP 500s from a local sink: one alert, never one per failure", async () => {
    const account = await signUp(server, { plan: "enterprise" });
    const accountWorld = createIssuesWorld(server, account);
    const created = await rule({ type: "issue_created" }, account);
    const route = await accountWorld.route([{ name: "Billing", url: `${sink.url}/status/500` }]);
    for (let sent = 0; sent < 500; sent += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => accountWorld.ingest(route, { i })));
    }
    // Past the breaker's threshold deliveries wait for it: its circuit_open failures are an
    // issue of their own (decisions.md §8), an echo of the 500s that rules stay quiet on.
    const issues = await pollUntil(
      async () => {
        const items = await accountWorld.issuesOf(destinationOf(route));
        const total = items.reduce((sum, i) => sum + i.occurrence_count, 0);
        return total >= 500 ? items : undefined;
      },
      { what: "every failure counted" },
    );
    expect(issues.map((i) => i.error_type).sort()).toEqual(["circuit_breaker_error", "http_error"]);
    const cause = issues.find((i) => i.error_type === "http_error");
    // Every firing commits with the failure that caused it: all failures are counted, so all
    // alerts there will ever be for them are written by now.
    const alerts = await callAs(server, account, "GET", `/api/v1/alert-rules/${created.id}/alerts`);
    expect(alerts.body.data.map((a: { issue_id: string }) => a.issue_id)).toEqual([cause?.id]);
    await pollUntil(() => documentsAt(created.path).length === 1, {
      what: "the alert at the sink",
    });
  });
});

describe("conditions on real issues", () => {
  test("a disabled rule does not fire; enabled again, it fires for the issue's next failure", async () => {
    const threshold = await rule({ type: "occurrence_threshold", value: 1 });
    const off = await callAs(server, owner, "PATCH", `/api/v1/alert-rules/${threshold.id}`, {
      enabled: false,
    });
    expect(off.status).toBe(200);
    const route = await world.route([{ name: "Quiet", url: "{{QUIET_URL_NOT_SET}}" }]);
    await world.ingest(route, {});
    await world.issueWith(destinationOf(route), (i) => i.occurrence_count === 1);
    const none = await callAs(server, owner, "GET", `/api/v1/alert-rules/${threshold.id}/alerts`);
    expect(none.body.total).toBe(0);
    await callAs(server, owner, "PATCH", `/api/v1/alert-rules/${threshold.id}`, { enabled: true });
    await world.ingest(route, {});
    await deliveredAlerts(threshold.id, 1);
    expect(documentsAt(threshold.path)[0].data.issue.occurrence_count).toBe(2);
  });

  test("open_for_days fires from the scheduler once the issue is old enough, and not for a closed one", async () => {
    // An organization of its own: the other tests' issues are open too, and would be alerted.
    const account = await freshAccount();
    const mine = createIssuesWorld(server, account);
    const aged = await rule({ type: "open_for_days", value: 2 }, account);
    const route = await mine.route([{ name: "Slow", url: "{{SLOW_URL_NOT_SET}}" }]);
    const closedRoute = await mine.route([{ name: "Fixed", url: "{{FIXED_URL_NOT_SET}}" }]);
    await mine.ingest(route, {});
    await mine.ingest(closedRoute, {});
    const issue = await mine.issueWith(destinationOf(route), () => true);
    const fixed = await mine.issueWith(destinationOf(closedRoute), () => true);
    expect((await mine.patch(fixed.id, { status: "closed" })).status).toBe(200);
    clock.advance(2 * DAY - 60_000);
    await scheduler.run(OPEN_FOR_DAYS_JOB);
    const early = await callAs(server, account, "GET", `/api/v1/alert-rules/${aged.id}/alerts`);
    expect(early.body.total).toBe(0);
    clock.advance(60_000);
    await scheduler.run(OPEN_FOR_DAYS_JOB);
    await scheduler.run(OPEN_FOR_DAYS_JOB);
    const [alert] = await deliveredAlerts(aged.id, 1, account);
    expect(alert.issue_id).toBe(issue.id);
    expect(documentsAt(aged.path)[0]).toMatchObject({
      type: "issue.open_for_days",
      data: { issue: { id: issue.id, status: "open" } },
    });
  });

  test("open_for_days reads each organization's issues: another's thousands of older ones do not hide them", async () => {
    const noisy = await freshAccount();
    const noisyWorld = createIssuesWorld(server, noisy);
    const noisyRoute = await noisyWorld.route([{ name: "Down", url: "{{NOISY_URL_NOT_SET}}" }]);
    await noisyWorld.ingest(noisyRoute, {});
    const seed = await noisyWorld.issueWith(destinationOf(noisyRoute), () => true);
    // More unclosed issues than one check reads, all older than the quiet organization's.
    await onStore(
      server,
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO issues (id, organization_id, bridge_id, destination_id, status, error_type,
         error_code, error_message, occurrence_count, first_occurrence_at, last_occurrence_at,
         opened_at, created_at, updated_at)
       SELECT 'copy-' || i, organization_id, bridge_id, destination_id, 'open', error_type,
         'copy-' || i, error_message, 1, opened_at, opened_at, opened_at, created_at, updated_at
         FROM issues, n WHERE issues.id = ?`,
      OPEN_ISSUES_PER_ORGANIZATION,
      seed.id,
    );
    clock.advance(60_000);
    const quiet = await freshAccount();
    const quietWorld = createIssuesWorld(server, quiet);
    const aged = await rule({ type: "open_for_days", value: 1 }, quiet);
    const route = await quietWorld.route([{ name: "Also down", url: "{{QUIET_URL_NOT_SET}}" }]);
    await quietWorld.ingest(route, {});
    const issue = await quietWorld.issueWith(destinationOf(route), () => true);
    clock.advance(DAY);
    await scheduler.run(OPEN_FOR_DAYS_JOB);
    const [alert] = await deliveredAlerts(aged.id, 1, quiet);
    expect(alert.issue_id).toBe(issue.id);
  });
});

describe("alerts that fail", () => {
  test("a failing alert channel is recorded on the alert and opens no issue", async () => {
    const before = await callAs(server, owner, "GET", "/api/v1/issues?page_size=100");
    const broken = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
      name: "Broken channel",
      condition: { type: "issue_created" },
      channel: { type: "slack", webhook_url: `${sink.url}/status/500/slack` },
    });
    const test = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/alert-rules/${broken.body.data.id}/test`,
    );
    expect(test.status).toBe(202);
    const alert = await pollUntil(
      async () => {
        const url = `/api/v1/alert-rules/${broken.body.data.id}/alerts`;
        const found = (await callAs(server, owner, "GET", url)).body.data[0];
        return found?.delivery?.attempts >= 1 ? found : undefined;
      },
      { what: "the alert's failed attempt" },
    );
    expect(alert.delivery).toMatchObject({
      status: "retrying",
      status_code: 500,
      error_type: "http_error",
    });
    const after = await callAs(server, owner, "GET", "/api/v1/issues?page_size=100");
    expect(after.body.pagination.total_records).toBe(before.body.pagination.total_records);
  });
});
