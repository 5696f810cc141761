import { afterAll, beforeAll, expect, test } from "bun:test";
import { ISSUES_RETENTION_JOB } from "../issues/issues.room.ts";
import { createIssuesWorld, destinationOf } from "../issues/issues.test-world.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { storedCount } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { ALERTS_RETENTION_JOB } from "./alerts.room.ts";

const DAY = 86_400_000;
const clock = createFakeClock(Date.UTC(2026, 4, 1));
const scheduler = createManualScheduler();
const sink = startHttpSink();
let server: TestServer;
let owner: TestAccount;

beforeAll(async () => {
  // Login tokens outlive the weeks this test moves the clock through.
  server = await startTestServer({ clock, scheduler, config: { jwt_ttl: 365 * DAY } });
  owner = await signUp(server, { plan: "free" }); // 7 days
  sink.answer((request) =>
    request.path.startsWith("/down") ? { status: 500, body: "down" } : { status: 200 },
  );
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const alertsOf = async (ruleId: string) =>
  (await callAs(server, owner, "GET", `/api/v1/alert-rules/${ruleId}/alerts`)).body.data as {
    id: string;
    test: boolean;
    delivery: { status: string } | null;
  }[];
const alertDeliveries = () =>
  storedCount(server, "SELECT count(*) AS n FROM deliveries WHERE kind = 'alert'");

test("firings older than the plan's retention go with their deliveries; one whose issue is still there stays", async () => {
  const rule = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
    name: "Pager",
    condition: { type: "issue_created" },
    channel: { type: "webhook", url: `${sink.url}/alerts` },
  });
  const ruleId = rule.body.data.id as string;
  expect((await callAs(server, owner, "POST", `/api/v1/alert-rules/${ruleId}/test`)).status).toBe(
    202,
  );
  const world = createIssuesWorld(server, owner);
  const route = await world.route([{ name: "down", url: `${sink.url}/down` }]);
  await world.ingest(route, {});
  const issue = await world.issueWith(destinationOf(route), () => true);
  const delivered = () =>
    pollUntil(
      async () => {
        const alerts = await alertsOf(ruleId);
        return alerts.length === 2 && alerts.every((a) => a.delivery?.status === "delivered")
          ? alerts
          : undefined;
      },
      { what: "the test alert and the issue's alert delivered" },
    );
  const [first, second] = await delivered();
  expect([first?.test, second?.test].sort()).toEqual([false, true]);
  expect(await alertDeliveries()).toBe(2);

  clock.advance(8 * DAY);
  await scheduler.run(ALERTS_RETENTION_JOB);
  const kept = await alertsOf(ruleId);
  expect(kept.map((a) => a.test)).toEqual([false]);
  expect(await alertDeliveries()).toBe(1);

  // Once the issue itself is swept, its firing goes too.
  await world.patch(issue.id, { status: "closed" });
  clock.advance(8 * DAY);
  await scheduler.run(ISSUES_RETENTION_JOB);
  await scheduler.run(ALERTS_RETENTION_JOB);
  expect(await alertsOf(ruleId)).toEqual([]);
  expect(await alertDeliveries()).toBe(0);
});
