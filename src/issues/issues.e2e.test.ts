import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { createIssuesWorld, destinationOf, type IssuesWorld } from "./issues.test-world.ts";

let server: TestServer;
let owner: TestAccount;
let world: IssuesWorld;
const sink = startHttpSink();

beforeAll(async () => {
  server = await startTestServer({ config: { retry_base_ms: 50, retry_cap_ms: 100 } });
  owner = await signUp(server, { plan: "team" });
  world = createIssuesWorld(server, owner);
  // Each test's destination path says how it answers: /status/<code>, anything else 200.
  sink.answer((request) => {
    const code = /^\/status\/(\d+)/.exec(request.path)?.[1];
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
    expect(detail.body.data).toMatchObject({
      id: issue.id,
      occurrence_count: 3,
      destination_name: "orders",
      bridge_name: route.name,
    });
    const attempts = detail.body.data.recent_attempts;
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
    expect([moved.status, moved.body.data.status]).toEqual([200, "work_in_progress"]);
    expect((await callAs(server, null, "GET", path)).status).toBe(401);
  });
});
