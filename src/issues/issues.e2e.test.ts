import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, captureAt, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { storedCount } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createIssuesWorld, destinationOf, type IssuesWorld } from "./issues.test-world.ts";

let server: TestServer;
let owner: TestAccount;
let world: IssuesWorld;
const sink = startHttpSink();

beforeAll(async () => {
  server = await startTestServer({
    config: {
      retry_base_ms: 50,
      retry_cap_ms: 100,
      destination_timeout_ms: 300,
      // An opened breaker stays open for the whole file: its waits are what one test counts.
      breaker_open_ms: 3_600_000,
    },
  });
  owner = await signUp(server, { plan: "team" });
  world = createIssuesWorld(server, owner);
  // Each test's destination path says how it answers: /status/<code>, anything else 200.
  sink.answer((request) => {
    const code = /^\/status\/(\d+)/.exec(request.path)?.[1];
    if (request.path.startsWith("/slow")) return { status: 200, delayMs: 1500 };
    return code ? { status: Number(code), body: `failed with ${code}` } : { status: 200 };
  });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

describe("grouping failed deliveries", () => {
  test("three 500s to one destination are one open issue counted three times, with its latest attempts", async () => {
    const route = await world.route([{ name: "orders", url: `${sink.url}/status/500` }]);
    const events = [];
    for (let i = 0; i < 3; i++) events.push(await world.ingest(route, { n: i }));
    const issue = await world.issueWith(destinationOf(route), (i) => i.occurrence_count === 3);
    expect(issue).toMatchObject({
      bridge_id: route.bridgeId,
      destination_id: destinationOf(route),
      status: "open",
      error_type: "http_error",
      error_code: "500",
      resolved_at: null,
      last_success_at: null,
    });
    expect(issue.first_occurrence_at <= issue.last_occurrence_at).toBe(true);
    const detail = await callAs(server, owner, "GET", `/api/v1/issues/${issue.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: issue.id,
      occurrence_count: 3,
      destination_name: "orders",
      bridge_name: route.name,
    });
    // Bare, not under data: issues keep their own shapes (decisions §5).
    expect(detail.body.data).toBeUndefined();
    const attempts = detail.body.recent_attempts;
    expect(attempts.map((a: { event_id: string }) => a.event_id).sort()).toEqual(events.sort());
    expect(attempts[0]).toMatchObject({
      status_code: 500,
      response_excerpt: "failed with 500",
      error_type: "http_error",
      error_code: "500",
    });
  });

  test("another status code, another destination or another bridge is another issue", async () => {
    const route = await world.route([
      { name: "a", url: `${sink.url}/status/500` },
      { name: "b", url: `${sink.url}/status/503` },
    ]);
    const other = await world.route([{ name: "a", url: `${sink.url}/status/500` }]);
    await world.ingest(route, {});
    await world.ingest(other, {});
    const [a, b] = [destinationOf(route), destinationOf(route, 1)];
    const first = await world.issueWith(a, (i) => i.occurrence_count === 1);
    const second = await world.issueWith(b, (i) => i.occurrence_count === 1);
    const third = await world.issueWith(destinationOf(other), (i) => i.occurrence_count === 1);
    expect([first.error_code, second.error_code, third.error_code]).toEqual(["500", "503", "500"]);
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    expect(third.bridge_id).toBe(other.bridgeId);
  });

  test("a destination answering 401 makes an authentication_error issue", async () => {
    const route = await world.route([{ name: "auth", url: `${sink.url}/status/401` }]);
    await world.ingest(route, {});
    const issue = await world.issueWith(destinationOf(route), () => true);
    expect([issue.error_type, issue.error_code]).toEqual(["authentication_error", "401"]);
  });
});

describe("every error_type of decisions.md §8 makes its own issue", () => {
  test("a destination slower than the timeout: network_error / timeout", async () => {
    const route = await world.route([{ name: "slow", url: `${sink.url}/slow` }]);
    await world.ingest(route, {});
    const issue = await world.issueWith(destinationOf(route), () => true);
    expect([issue.error_type, issue.error_code]).toEqual(["network_error", "timeout"]);
  });

  test("nothing listening: network_error / connection_refused", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${closed.port}/gone`;
    await closed.stop(true);
    const route = await world.route([{ name: "refused", url }]);
    await world.ingest(route, {});
    const issue = await world.issueWith(destinationOf(route), () => true);
    expect([issue.error_type, issue.error_code]).toEqual(["network_error", "connection_refused"]);
  });

  test("a {{SECRET}} the organization does not have: authentication_error / missing_secret", async () => {
    const route = await world.route([
      { name: "secret", url: `${sink.url}/ok`, headers: { "x-token": "{{NO_SUCH_SECRET}}" } },
    ]);
    await world.ingest(route, {});
    const issue = await world.issueWith(destinationOf(route), () => true);
    expect([issue.error_type, issue.error_code]).toEqual([
      "authentication_error",
      "missing_secret",
    ]);
    expect(issue.error_message).toContain("NO_SUCH_SECRET");
  });

  test("a transformation that throws: transformation_error / script_error, counted per event", async () => {
    const created = await callAs(server, owner, "POST", "/api/v1/transformations", {
      name: "broken",
      code: 'addHandler("transform", () => { throw new Error("boom"); });',
    });
    const route = await world.route([
      { name: "transformed", url: `${sink.url}/ok`, transformation_id: created.body.data.id },
    ]);
    await world.ingest(route, { a: 1 });
    await world.ingest(route, { a: 2 });
    const issue = await world.issueWith(destinationOf(route), (i) => i.occurrence_count === 2);
    expect([issue.error_type, issue.error_code]).toEqual(["transformation_error", "script_error"]);
  });

  test("failures past the breaker's threshold: an http_error issue, then a circuit_breaker_error / circuit_open one", async () => {
    const route = await world.route([{ name: "breaker", url: `${sink.url}/status/500` }]);
    const destination = destinationOf(route);
    for (let i = 0; i < 5; i++) await world.ingest(route, { i });
    await world.issueWith(destination, (i) => i.occurrence_count === 5);
    await world.ingest(route, { i: 5 });
    const issues = await pollUntil(
      async () => {
        const items = await world.issuesOf(destination);
        return items.length === 2 ? items : undefined;
      },
      { what: "the circuit_open issue" },
    );
    const byType = Object.fromEntries(issues.map((i) => [i.error_type, i]));
    expect(byType.http_error).toMatchObject({ error_code: "500", occurrence_count: 5 });
    expect(byType.circuit_breaker_error).toMatchObject({
      error_code: "circuit_open",
      occurrence_count: 1,
      status: "open",
    });
  });
});

describe("what makes no issue, and what goes with its destination", () => {
  test("50 failures at once to one destination are one issue per error_type, every failure counted", async () => {
    const route = await world.route([{ name: "burst", url: `${sink.url}/status/500` }]);
    const destination = destinationOf(route);
    await Promise.all(Array.from({ length: 50 }, (_, i) => world.ingest(route, { i })));
    const issues = await pollUntil(
      async () => {
        const items = await world.issuesOf(destination);
        const total = items.reduce((sum, i) => sum + i.occurrence_count, 0);
        // Past the breaker's threshold deliveries wait for it: one circuit_open attempt each.
        return total >= 50 ? items : undefined;
      },
      { what: "every failure counted" },
    );
    const types = issues.map((i) => i.error_type);
    expect(new Set(types).size).toBe(types.length);
    expect(types).toContain("http_error");
  });

  test("a failing forward of a debug endpoint makes no issue", async () => {
    const account = await signUp(server, { plan: "team" });
    const endpoint = await createDebugEndpoint(server, account, {
      forward_url: `${sink.url}/status/500`,
    });
    const before = sink.requests.length;
    await captureAt(server, `/w/${endpoint.slug}`);
    await pollUntil(() => (sink.requests.length > before ? true : undefined), {
      what: "the forward sent",
    });
    // The forward's failure is recorded in the same transaction that would make an issue.
    await pollUntil(
      async () => {
        const url = `/api/v1/endpoints/${endpoint.id}/requests?page_size=1`;
        const listed = await callAs(server, account, "GET", url);
        const requestId = listed.body.data[0]?.id;
        if (!requestId) return undefined;
        const forwards = await callAs(
          server,
          account,
          "GET",
          `/api/v1/endpoints/${endpoint.id}/requests/${requestId}/forwards`,
        );
        return forwards.body.data.length > 0 ? true : undefined;
      },
      { what: "the forward's attempt recorded" },
    );
    const issues = await callAs(server, account, "GET", "/api/v1/issues");
    expect(issues.body.pagination.total_records).toBe(0);
  });

  test("deleting a destination deletes its issues; deleting a bridge deletes its destinations' issues", async () => {
    const route = await world.route([
      { name: "one", url: `${sink.url}/status/500` },
      { name: "two", url: `${sink.url}/status/500` },
    ]);
    await world.ingest(route, {});
    const first = await world.issueWith(destinationOf(route), () => true);
    const second = await world.issueWith(destinationOf(route, 1), () => true);
    const destinationPath = `/api/v1/bridges/${route.bridgeId}/destinations/${destinationOf(route)}`;
    expect((await callAs(server, owner, "DELETE", destinationPath)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `/api/v1/issues/${first.id}`)).status).toBe(404);
    expect((await callAs(server, owner, "GET", `/api/v1/issues/${second.id}`)).status).toBe(200);
    const bridgePath = `/api/v1/bridges/${route.bridgeId}`;
    expect((await callAs(server, owner, "DELETE", bridgePath)).status).toBe(204);
    expect((await callAs(server, owner, "GET", `/api/v1/issues/${second.id}`)).status).toBe(404);
  });
});

describe("the API", () => {
  test("list envelope, filters and their 422s", async () => {
    const route = await world.route([{ name: "list", url: `${sink.url}/status/502` }]);
    await world.ingest(route, {});
    const issue = await world.issueWith(destinationOf(route), () => true);
    const list = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/issues?bridge_id=${route.bridgeId}&status=open&page_size=1`,
    );
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      items: [expect.objectContaining({ id: issue.id })],
      pagination: { current_page: 1, page_size: 1, total_pages: 1, total_records: 1 },
    });
    const closedOnly = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/issues?destination_id=${destinationOf(route)}&status=closed`,
    );
    expect(closedOnly.body.pagination.total_records).toBe(0);
    const bad = await callAs(server, owner, "GET", "/api/v1/issues?status=done&bridge_id=x");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(["bridge_id", "status"]);
  });

  test("another organization's issue is a 404 to read and to change; members read, admins write", async () => {
    const route = await world.route([{ name: "roles", url: `${sink.url}/status/500` }]);
    await world.ingest(route, {});
    const issue = await world.issueWith(destinationOf(route), () => true);
    const stranger = await signUp(server, { plan: "team" });
    const path = `/api/v1/issues/${issue.id}`;
    expect((await callAs(server, stranger, "GET", path)).status).toBe(404);
    const patched = await callAs(server, stranger, "PATCH", path, { status: "closed" });
    expect(patched.status).toBe(404);
    const theirs = await callAs(server, stranger, "GET", "/api/v1/issues");
    expect(theirs.body.items).toEqual([]);

    const member = await owner.addMember("member");
    expect((await callAs(server, member, "GET", path)).status).toBe(200);
    const refused = await callAs(server, member, "PATCH", path, { status: "closed" });
    expect(refused.status).toBe(403);
    const admin = await owner.addMember("admin");
    const moved = await callAs(server, admin, "PATCH", path, { status: "work_in_progress" });
    expect([moved.status, moved.body.status]).toEqual([200, "work_in_progress"]);
    expect(moved.body.data).toBeUndefined();
    expect((await callAs(server, null, "GET", path)).status).toBe(401);
  });

  test("/metrics counts issues by status", async () => {
    const route = await world.route([{ name: "metrics", url: `${sink.url}/status/500` }]);
    await world.ingest(route, {});
    const issue = await world.issueWith(destinationOf(route), () => true);
    const gauge = async (status: string) => {
      const text = await (await server.request("/metrics")).text();
      const line = text.split("\n").find((l) => l.startsWith(`weir_issues{status="${status}"} `));
      return Number(line?.split(" ")[1]);
    };
    // On PostgreSQL each node reads the counts every few seconds: /metrics is polled until it
    // shows what is stored, and then until it shows the change.
    const shown = async () => [await gauge("open"), await gauge("closed")];
    const stored = async () => [
      await storedCount(server, "SELECT count(*) AS n FROM issues WHERE status = 'open'"),
      await storedCount(server, "SELECT count(*) AS n FROM issues WHERE status = 'closed'"),
    ];
    const until = (wanted: () => Promise<number[]> | number[]) =>
      pollUntil(
        async () => {
          const [figures, expected] = [await shown(), await wanted()];
          return Bun.deepEquals(figures, expected) ? figures : undefined;
        },
        { what: "the issue counts on /metrics", timeoutMs: 12_000 },
      );
    const [open = 0, closed = 0] = await until(stored);
    expect(open).toBeGreaterThanOrEqual(1);
    await world.patch(issue.id, { status: "closed" });
    expect(await until(() => [open - 1, closed + 1])).toEqual([open - 1, closed + 1]);
    expect(await gauge("work_in_progress")).toBeGreaterThanOrEqual(0);
  });
});
