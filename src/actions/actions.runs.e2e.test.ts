import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import {
  type CreatedEndpoint,
  callAs,
  createDebugEndpoint,
  createEndpointWithActions,
} from "../test-utils/endpoints.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { connectSocket, subscribe } from "../test-utils/realtime-client.ts";
import { storedRows } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

const BUDGET_MS = 500;
let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;

beforeAll(async () => {
  server = await startTestServer({
    config: { capture_rate_limit: "off", actions_budget_ms: BUDGET_MS },
  });
  owner = await signUp(server, { plan: "team" });
  sink = startHttpSink();
  sink.answer((request) => ({
    status: 200,
    body: "ok",
    delayMs: request.path === "/slow" ? 1500 : 0,
  }));
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: tests inspect the answered JSON as received.
type Result = any;

const withActions = (actions: Record<string, unknown>[]) =>
  createEndpointWithActions(server, owner, actions);

async function send(
  endpoint: CreatedEndpoint,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const started = performance.now();
  const response = await fetch(`${server.url}/w/${endpoint.slug}`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  const listed = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}/requests`);
  return { response, text, elapsedMs, requestId: listed.body.data[0].id as string };
}

const runsPath = (endpoint: CreatedEndpoint, requestId: string) =>
  `/api/v1/endpoints/${endpoint.id}/requests/${requestId}/actions`;

function runOf(endpoint: CreatedEndpoint, requestId: string): Promise<Result[]> {
  return pollUntil(
    async () => {
      const answer = await callAs(server, owner, "GET", runsPath(endpoint, requestId));
      return answer.body.data?.length > 0 ? answer.body.data : undefined;
    },
    { what: "the action run" },
  );
}

const statuses = (results: Result[]) => results.map((r: Result) => `${r.type}:${r.status}`);
const hits = (path: string) => sink.requests.filter((r) => r.path === path).length;

describe("run records and the realtime push", () => {
  test("each action's outcome is readable per request and pushed as actions_completed after webhook_received", async () => {
    const endpoint = await withActions([
      { type: "store_variable", config: { name: "seen", value: "$request.body.n$" } },
    ]);
    const token = await owner.createApiKey();
    const socket = connectSocket(server.url, { token });
    const joined = await subscribe(socket, endpoint.id);
    expect(joined.reply.status).toBe("ok");
    const order: string[] = [];
    const completed: Result[] = [];
    joined.channel.on("webhook_received", () => {
      order.push("webhook_received");
    });
    joined.channel.on("actions_completed", (payload) => {
      order.push("actions_completed");
      completed.push(payload);
    });
    const sent = await send(endpoint, { n: 7 });
    await pollUntil(() => completed.length === 1, { what: "actions_completed" });
    socket.disconnect();
    expect(order).toEqual(["webhook_received", "actions_completed"]);
    const results = await runOf(endpoint, sent.requestId);
    expect(completed[0]).toEqual({ request_id: sent.requestId, results });
    expect(results).toEqual([
      {
        action_id: expect.any(String),
        type: "store_variable",
        status: "ok",
        duration_ms: expect.any(Number),
        output: { name: "seen", value: 7, persisted: true },
        error: null,
      },
    ]);
  });

  test("a request with no run answers an empty list; another endpoint's or organization's is 404", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    const sent = await send(endpoint, {});
    const empty = await callAs(server, owner, "GET", runsPath(endpoint, sent.requestId));
    expect(empty).toMatchObject({ status: 200, body: { data: [] } });
    const other = await createDebugEndpoint(server, owner);
    expect((await callAs(server, owner, "GET", runsPath(other, sent.requestId))).status).toBe(404);
    const stranger = await signUp(server, { plan: "team" });
    expect((await callAs(server, stranger, "GET", runsPath(endpoint, sent.requestId))).status).toBe(
      404,
    );
  });

  test("runs go with their captured request when the endpoint is emptied or deleted", async () => {
    const endpoint = await withActions([
      { type: "store_variable", config: { name: "v", value: 1 } },
    ]);
    const sent = await send(endpoint, {});
    await runOf(endpoint, sent.requestId);
    const count = async () =>
      (await storedRows(server, "action_runs", "endpoint_id", endpoint.id)).length;
    expect(await count()).toBe(1);
    const emptied = await callAs(
      server,
      owner,
      "DELETE",
      `/api/v1/endpoints/${endpoint.id}/requests`,
    );
    expect(emptied.status).toBeLessThan(300);
    await pollUntil(async () => (await count()) === 0, {
      what: "the run drained with its request",
    });
    const second = await send(endpoint, {});
    await runOf(endpoint, second.requestId);
    expect((await callAs(server, owner, "DELETE", `/api/v1/endpoints/${endpoint.id}`)).status).toBe(
      204,
    );
    await pollUntil(async () => (await count()) === 0, {
      what: "the run drained with the endpoint",
    });
  });
});

describe("run again and try out", () => {
  test("run again: 201 with a new run of the current chain on a stored request, with its effects", async () => {
    const endpoint = await withActions([
      {
        type: "http_request",
        config: { url: `${sink.url}/again`, method: "POST", body: "$request.body.json$" },
      },
    ]);
    const sent = await send(endpoint, { id: 1 });
    await runOf(endpoint, sent.requestId);
    expect(hits("/again")).toBe(1);
    await callAs(server, owner, "POST", `/api/v1/endpoints/${endpoint.id}/actions`, {
      type: "store_variable",
      name: "added later",
      config: { name: "ran", value: "again" },
    });
    const again = await callAs(server, owner, "POST", `${runsPath(endpoint, sent.requestId)}/run`);
    expect(again.status).toBe(201);
    expect(statuses(again.body.data)).toEqual(["http_request:ok", "store_variable:ok"]);
    expect(hits("/again")).toBe(2);
    const latest = await callAs(server, owner, "GET", runsPath(endpoint, sent.requestId));
    expect(latest.body.data).toEqual(again.body.data);
    const member = await owner.addMember("member");
    const refused = await callAs(
      server,
      member,
      "POST",
      `${runsPath(endpoint, sent.requestId)}/run`,
    );
    expect(refused).toMatchObject({ status: 403, body: { error: "forbidden" } });
    const missing = await callAs(server, owner, "POST", `${runsPath(endpoint, "nope")}/run`);
    expect(missing.status).toBe(404);
  });

  test("try out: nothing is sent, stored or recorded; unsaved actions are checked like saved ones", async () => {
    const endpoint = await withActions([
      {
        type: "http_request",
        config: { url: `${sink.url}/dry`, method: "POST", body: { id: "$request.body.id$" } },
      },
      { type: "store_variable", config: { name: "last", value: "$request.body.id$" } },
    ]);
    const sent = await send(endpoint, { id: "stored" });
    await runOf(endpoint, sent.requestId);
    const sentBefore = hits("/dry");
    const path = `/api/v1/endpoints/${endpoint.id}/actions/test`;

    const onStored = await callAs(server, owner, "POST", path, { request_id: sent.requestId });
    expect(onStored.status).toBe(200);
    expect(statuses(onStored.body.data)).toEqual(["http_request:skipped", "store_variable:ok"]);
    expect(onStored.body.data[0].output.would_send).toEqual({
      url: `${sink.url}/dry`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"id":"stored"}',
    });
    expect(onStored.body.data[1].output).toEqual({
      name: "last",
      value: "stored",
      persisted: false,
    });

    const onSample = await callAs(server, owner, "POST", path, {
      request: { method: "PUT", headers: { "X-Kind": "sample" }, body: { id: "sample" } },
      actions: [
        {
          type: "modify_response",
          config: { body: "$request.method$ $request.headers.x-kind$ last=$last$" },
        },
      ],
    });
    expect(onSample.status).toBe(200);
    expect(onSample.body.data).toEqual([
      expect.objectContaining({
        action_id: "unsaved-0",
        status: "ok",
        output: { body: "PUT sample last=stored" },
      }),
    ]);
    expect(hits("/dry")).toBe(sentBefore);
    // The stored variable is still the capture's, and the request has no new run.
    const next = await callAs(server, owner, "POST", path, {
      request: { body: {} },
      actions: [{ type: "modify_response", config: { body: "$last$" } }],
    });
    expect(next.body.data[0].output).toEqual({ body: "stored" });
    expect(
      (await callAs(server, owner, "GET", runsPath(endpoint, sent.requestId))).body.data,
    ).toHaveLength(2);

    const bad = await callAs(server, owner, "POST", path, {
      request: { body: {} },
      actions: [{ type: "http_request", config: { url: "nope", method: "GET" } }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors["actions.0.config.url"]).toBeArray();
    const neither = await callAs(server, owner, "POST", path, {});
    expect(neither.status).toBe(422);
    expect(neither.body.errors.request).toBeArray();
  });
});

describe("the sender's answer and safety", () => {
  test("without modify_response the capture does not wait for the chain", async () => {
    const endpoint = await withActions([
      { type: "http_request", config: { url: `${sink.url}/slow`, method: "POST" } },
    ]);
    const sent = await send(endpoint, {});
    expect(sent.response.status).toBe(200);
    expect(sent.elapsedMs).toBeLessThan(BUDGET_MS);
    const results = await runOf(endpoint, sent.requestId);
    // The chain's budget bounds the http_request too.
    expect(results[0]).toMatchObject({ status: "error" });
    expect(results[0].error).toContain("timeout");
  });

  test("with modify_response it waits at most the budget, then answers as the endpoint would and says so", async () => {
    const endpoint = await withActions([
      { type: "run_script", config: { code: "for (;;) {}" } },
      { type: "modify_response", config: { status: 299, body: "late" } },
    ]);
    const sent = await send(endpoint, { x: 1 });
    expect(sent.response.status).toBe(200);
    expect(JSON.parse(sent.text)).toEqual({
      message: "Webhook received",
      request_id: sent.requestId,
    });
    expect(sent.elapsedMs).toBeLessThan(BUDGET_MS + 1000);
    const results = await runOf(endpoint, sent.requestId);
    expect(statuses(results)).toEqual(["run_script:error", "modify_response:error"]);
    expect(results[1].error).toMatch(/budget/);
    const stored = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${endpoint.id}/requests/${sent.requestId}`,
    );
    expect(String(stored.body.data.status)).toBe("200");
  });

  test("an http_request to the endpoint's own capture URL does not loop", async () => {
    const endpoint = await createDebugEndpoint(server, owner);
    await callAs(server, owner, "POST", `/api/v1/endpoints/${endpoint.id}/actions`, {
      type: "http_request",
      name: "echo to self",
      config: {
        url: `${server.url}/w/${endpoint.slug}/echo`,
        method: "POST",
        body: "$request.body.json$",
      },
    });
    const sent = await send(endpoint, { round: 1 });
    // The echo may be stored before the list is read: the capture's own answer names its request.
    const first = await runOf(endpoint, JSON.parse(sent.text).request_id);
    expect(first[0]).toMatchObject({ status: "ok", output: { status: 200 } });
    const listed = await pollUntil(async () => {
      const answer = await callAs(
        server,
        owner,
        "GET",
        `/api/v1/endpoints/${endpoint.id}/requests`,
      );
      return answer.body.data.length === 2 ? answer.body.data : undefined;
    });
    const echoed = listed[0];
    expect(echoed.headers["x-weir-forwarded"]).toBe("1");
    const second = await runOf(endpoint, echoed.id);
    expect(second[0]).toMatchObject({ status: "skipped", output: { reason: "loop_guard" } });
    const total = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}/requests`);
    expect(total.body.data).toHaveLength(2);
  });
});
