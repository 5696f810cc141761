import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { type CreatedEndpoint, createEndpointWithActions } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const scheduler = createManualScheduler();
const clock = createFakeClock();
let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;
let release: (() => void) | null = null;

beforeAll(async () => {
  server = await startTestServer({ scheduler, clock, config: { capture_rate_limit: "off" } });
  owner = await signUp(server, { plan: "team" });
  sink = startHttpSink();
});
afterAll(async () => {
  release?.();
  await server.stop();
  await sink.stop();
});

type Row = Record<string, unknown>;
/** A statement (parameters $1, $2, …) on whichever database the server keeps its data in. */
async function query(text: string, params: string[] = []): Promise<Row[]> {
  if (server.postgres) return [...(await server.postgres.sql.unsafe(text, params))];
  return server.deps.db.sqlite.query<Row, string[]>(text.replace(/\$(\d+)/g, "?$1")).all(...params);
}
const owed = (requestId: string) =>
  query("SELECT request_id FROM action_runs_due WHERE request_id = $1", [requestId]);
const runsOf = (requestId: string) =>
  query("SELECT trigger, results FROM action_runs WHERE request_id = $1 ORDER BY id", [
    requestId,
  ]) as Promise<{ trigger: string; results: string }[]>;

const endpointWithChain = () =>
  createEndpointWithActions(server, owner, [
    { type: "http_request", name: "notify", config: { url: `${sink.url}/owed`, method: "POST" } },
    { type: "modify_response", name: "answer", config: { status: 202 } },
  ]);

/** One capture at a chain's endpoint, answered 202 by it; the id of the request once its run is recorded. */
async function captureWithRun(endpoint: CreatedEndpoint): Promise<string> {
  sink.answer(() => ({ status: 200, body: "ok" }));
  const response = await fetch(`${server.url}/w/${endpoint.slug}`, { method: "POST", body: "{}" });
  expect(response.status).toBe(202);
  return pollUntil(async () => {
    const [row] = await query("SELECT request_id FROM action_runs WHERE endpoint_id = $1", [
      endpoint.id,
    ]);
    return row?.request_id as string | undefined;
  });
}

test("the run a capture is owed is noted in its transaction and settled when the run is recorded", async () => {
  const endpoint = await endpointWithChain();
  // The sink holds the answer, so the run is in flight while the test looks.
  let held = true;
  sink.answer(() => ({ status: 200, body: "ok", delayMs: held ? 300 : 0 }));
  release = () => {
    held = false;
  };
  const answer = fetch(`${server.url}/w/${endpoint.slug}`, { method: "POST", body: "{}" });
  const requestId = await pollUntil(async () => {
    const [row] = await query("SELECT id FROM captured_requests WHERE endpoint_id = $1", [
      endpoint.id,
    ]);
    return row?.id as string | undefined;
  });
  expect(await owed(requestId)).toHaveLength(1);
  // A recovery tick meanwhile leaves a run this process is making alone.
  await scheduler.run("actions.recover");
  expect((await answer).status).toBe(202);
  await pollUntil(async () => (await runsOf(requestId)).length === 1, { what: "the run recorded" });
  expect(await owed(requestId)).toEqual([]);
  expect(await runsOf(requestId)).toHaveLength(1);
  release();
});

test("a run owed from before a restart is made by the recovery job, its answer noted as not given", async () => {
  const endpoint = await endpointWithChain();
  const requestId = await captureWithRun(endpoint);
  // As a crash between the commit and the run leaves it: the capture and its owed row, no run.
  await query("DELETE FROM action_runs WHERE request_id = $1", [requestId]);
  await query(
    `INSERT INTO action_runs_due (request_id, endpoint_id, organization_id, created_at)
     VALUES ($1, $2, $3, '2000-01-01T00:00:00.000Z')`,
    [requestId, endpoint.id, owner.organizationId],
  );
  const sentBefore = sink.requests.filter((r) => r.path === "/owed").length;
  await scheduler.run("actions.recover");
  const runs = await runsOf(requestId);
  expect(runs.map((r) => r.trigger)).toEqual(["capture"]);
  const results = JSON.parse(runs[0]?.results ?? "[]");
  expect(results.map((r: { status: string }) => r.status)).toEqual(["ok", "error"]);
  expect(results[1].error).toContain("before a restart");
  expect(sink.requests.filter((r) => r.path === "/owed").length).toBe(sentBefore + 1);
  expect(await owed(requestId)).toEqual([]);
  await scheduler.run("actions.recover");
  expect(await runsOf(requestId)).toHaveLength(1);
});

test("a CORS preflight runs no chain and is owed none", async () => {
  const endpoint = await endpointWithChain();
  const preflight = await fetch(`${server.url}/w/${endpoint.slug}`, {
    method: "OPTIONS",
    headers: { origin: "https://app.test", "access-control-request-method": "POST" },
  });
  expect(preflight.status).toBe(204);
  const stored = await query("SELECT id FROM captured_requests WHERE endpoint_id = $1", [
    endpoint.id,
  ]);
  expect(stored).toHaveLength(1);
  const requestId = stored[0]?.id as string;
  expect(await owed(requestId)).toEqual([]);
  expect(await runsOf(requestId)).toEqual([]);
});

// Last in the file: it moves the clock a month on.
test("the retention sweep takes a request's runs and what it was owed with it", async () => {
  const endpoint = await endpointWithChain();
  const requestId = await captureWithRun(endpoint);
  clock.advance(31 * 24 * 3600_000);
  await scheduler.run("retention.sweep");
  expect(await query("SELECT id FROM captured_requests WHERE id = $1", [requestId])).toEqual([]);
  expect(await runsOf(requestId)).toEqual([]);
});
