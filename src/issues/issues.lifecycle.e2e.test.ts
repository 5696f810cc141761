import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import {
  createIssuesWorld,
  destinationOf,
  type IssuesWorld,
  type IssueView,
} from "./issues.test-world.ts";

/** The Issue status table of interface.md and the PATCH moves of decisions.md §8, on a fake clock. */
const clock = createFakeClock(Date.UTC(2026, 2, 1, 12, 0, 0));
const iso = () => new Date(clock.now()).toISOString();
let server: TestServer;
let owner: TestAccount;
let world: IssuesWorld;
const sink = startHttpSink();
/** How each destination (`/d/<key>`) answers now: a status, 200 by default. */
const answers = new Map<string, number>();

beforeAll(async () => {
  server = await startTestServer({ clock });
  owner = await signUp(server, { plan: "team" });
  world = createIssuesWorld(server, owner);
  sink.answer((request) => {
    const status = answers.get(request.path.slice("/d/".length)) ?? 200;
    return { status, body: `answered ${status}` };
  });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

let keys = 0;
/** A route to one destination answering `status` until told otherwise. */
async function failingRoute(status: number) {
  keys += 1;
  const key = `k${keys}`;
  answers.set(key, status);
  const route = await world.route([{ name: key, url: `${sink.url}/d/${key}` }]);
  return { route, key, destination: destinationOf(route) };
}

const patch = async (issue: IssueView, status: unknown) => world.patch(issue.id, { status });

describe("the Issue status table", () => {
  test("(none) → open on the first failure; open stays open and counts the next", async () => {
    const { route, destination } = await failingRoute(500);
    const firstAt = iso();
    await world.ingest(route, {});
    const created = await world.issueWith(destination, () => true);
    expect(created).toMatchObject({
      status: "open",
      occurrence_count: 1,
      first_occurrence_at: firstAt,
      last_occurrence_at: firstAt,
      opened_at: firstAt,
    });
    clock.advance(60_000);
    await world.ingest(route, {});
    const counted = await world.issueWith(destination, (i) => i.occurrence_count === 2);
    expect(counted).toMatchObject({
      id: created.id,
      status: "open",
      first_occurrence_at: firstAt,
      last_occurrence_at: iso(),
      opened_at: firstAt,
    });
  });

  test("work_in_progress keeps its state while the failure recurs, and counts it", async () => {
    const { route, destination } = await failingRoute(502);
    await world.ingest(route, {});
    const issue = await world.issueWith(destination, () => true);
    expect((await patch(issue, "work_in_progress")).body.status).toBe("work_in_progress");
    clock.advance(1000);
    await world.ingest(route, {});
    const counted = await world.issueWith(destination, (i) => i.occurrence_count === 2);
    expect(counted).toMatchObject({ status: "work_in_progress", last_occurrence_at: iso() });
  });

  test("a closed issue whose failure recurs is open again: counted, resolved_at cleared, opened_at now", async () => {
    const { route, destination } = await failingRoute(503);
    await world.ingest(route, {});
    const issue = await world.issueWith(destination, () => true);
    await patch(issue, "work_in_progress");
    clock.advance(5000);
    const closed = await patch(issue, "closed");
    expect(closed.body).toMatchObject({ status: "closed", resolved_at: iso() });
    clock.advance(3_600_000);
    await world.ingest(route, {});
    const reopened = await world.issueWith(destination, (i) => i.status === "open");
    expect(reopened).toMatchObject({
      id: issue.id,
      occurrence_count: 2,
      resolved_at: null,
      opened_at: iso(),
      last_occurrence_at: iso(),
      first_occurrence_at: issue.first_occurrence_at,
    });
  });
});

describe("PATCH {status}: every move of decisions.md §8", () => {
  test("open ↔ work_in_progress ↔ closed and open → closed; resolved_at set on closed, cleared on leaving it", async () => {
    const { route, destination } = await failingRoute(500);
    await world.ingest(route, {});
    const issue = await world.issueWith(destination, () => true);
    const moves: [IssueView["status"], IssueView["status"]][] = [
      ["open", "work_in_progress"],
      ["work_in_progress", "closed"],
      ["closed", "open"],
      ["open", "closed"],
      ["closed", "work_in_progress"],
      ["work_in_progress", "open"],
    ];
    for (const [from, to] of moves) {
      clock.advance(1000);
      const before = (await callAs(server, owner, "GET", `/api/v1/issues/${issue.id}`)).body;
      expect(before.status).toBe(from);
      const answer = await patch(issue, to);
      expect([answer.status, answer.body.status]).toEqual([200, to]);
      expect(answer.body.resolved_at).toBe(to === "closed" ? iso() : null);
      expect(answer.body.opened_at).toBe(from === "closed" ? iso() : before.opened_at);
      expect(answer.body.updated_at).toBe(iso());
    }
  });

  test("asking for the status it has changes nothing", async () => {
    const { route, destination } = await failingRoute(500);
    await world.ingest(route, {});
    const issue = await world.issueWith(destination, () => true);
    clock.advance(1000);
    const same = await patch(issue, "open");
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(issue.updated_at);
  });

  test("an unknown, missing or non-string status is a 422 that changes nothing", async () => {
    const { route, destination } = await failingRoute(500);
    await world.ingest(route, {});
    const issue = await world.issueWith(destination, () => true);
    for (const body of [{ status: "resolved" }, {}, { status: 3 }, { status: "CLOSED" }]) {
      const answer = await world.patch(issue.id, body);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toBe("validation_failed");
      expect(answer.body.errors.status).toBeArray();
    }
    const after = await world.issueWith(destination, () => true);
    expect(after.status).toBe("open");
    const unknown = await world.patch("01234567-89ab-7def-8123-456789abcdef", { status: "closed" });
    expect(unknown.status).toBe(404);
  });
});

describe("resolution", () => {
  test("a success after the failure records last_success_at; the issue stays open (closing is manual)", async () => {
    const { route, destination, key } = await failingRoute(500);
    await world.ingest(route, {});
    const issue = await world.issueWith(destination, () => true);
    answers.set(key, 200);
    clock.advance(10_000);
    const successAt = iso();
    await world.ingest(route, {});
    const marked = await world.issueWith(destination, (i) => i.last_success_at !== null);
    expect(marked).toMatchObject({ id: issue.id, status: "open", last_success_at: successAt });
    expect(marked.occurrence_count).toBe(1);
  });

  test("a success elsewhere leaves the issue alone; a reopening clears the old success", async () => {
    const failing = await failingRoute(500);
    const healthy = await failingRoute(200);
    await world.ingest(failing.route, {});
    const issue = await world.issueWith(failing.destination, () => true);
    await world.ingest(healthy.route, {});
    answers.set(failing.key, 200);
    clock.advance(1000);
    await world.ingest(failing.route, {});
    await world.issueWith(failing.destination, (i) => i.last_success_at === iso());
    await patch(issue, "closed");
    answers.set(failing.key, 500);
    clock.advance(1000);
    await world.ingest(failing.route, {});
    const reopened = await world.issueWith(failing.destination, (i) => i.status === "open");
    expect(reopened.last_success_at).toBeNull();
    expect(await world.issuesOf(healthy.destination)).toEqual([]);
  });
});
