import { afterAll, beforeAll, expect, test } from "bun:test";
import { LEADERSHIP_JOB } from "../cluster/cluster.leadership.ts";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { ISSUES_RETENTION_JOB } from "./issues.room.ts";
import { createIssuesWorld, destinationOf } from "./issues.test-world.ts";

const DAY = 24 * 3600 * 1000;
const clock = createFakeClock(Date.UTC(2026, 4, 1));
const scheduler = createManualScheduler();
let server: TestServer;
const sink = startHttpSink();

beforeAll(async () => {
  // Login tokens outlive the weeks this test moves the clock through.
  server = await startTestServer({ clock, scheduler, config: { jwt_ttl: 365 * DAY } });
  sink.answer(() => ({ status: 500, body: "down" }));
  // On PostgreSQL the retention job runs on the cluster's leader: this node takes the lead.
  if (scheduler.has(LEADERSHIP_JOB)) await scheduler.run(LEADERSHIP_JOB);
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

test("the sweep deletes closed issues resolved before the plan's retention; open, in-progress and recent ones stay", async () => {
  const free = await signUp(server, { plan: "free" }); // 7 days
  const team = await signUp(server, { plan: "team" }); // 30 days
  const issueIn = async (account: typeof free, name: string) => {
    const world = createIssuesWorld(server, account);
    const route = await world.route([{ name, url: `${sink.url}/${name}` }]);
    await world.ingest(route, {});
    return { world, issue: await world.issueWith(destinationOf(route), () => true) };
  };
  const old = await issueIn(free, "old");
  const stillOpen = await issueIn(free, "open");
  const inProgress = await issueIn(free, "wip");
  const teamOld = await issueIn(team, "team-old");
  await old.world.patch(old.issue.id, { status: "closed" });
  await inProgress.world.patch(inProgress.issue.id, { status: "work_in_progress" });
  await teamOld.world.patch(teamOld.issue.id, { status: "closed" });
  clock.advance(6 * DAY);
  const recent = await issueIn(free, "recent");
  await recent.world.patch(recent.issue.id, { status: "closed" });
  clock.advance(2 * DAY);

  await scheduler.run(ISSUES_RETENTION_JOB);

  const status = async (account: typeof free, id: string) =>
    (await callAs(server, account, "GET", `/api/v1/issues/${id}`)).status;
  expect(await status(free, old.issue.id)).toBe(404);
  expect(await status(free, stillOpen.issue.id)).toBe(200);
  expect(await status(free, inProgress.issue.id)).toBe(200);
  expect(await status(free, recent.issue.id)).toBe(200);
  expect(await status(team, teamOld.issue.id)).toBe(200);
  clock.advance(23 * DAY);
  await scheduler.run(ISSUES_RETENTION_JOB);
  expect(await status(team, teamOld.issue.id)).toBe(404);
  expect(await status(free, stillOpen.issue.id)).toBe(200);
});
