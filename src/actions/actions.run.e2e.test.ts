import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import {
  type CreatedEndpoint,
  callAs,
  createEndpointWithActions,
} from "../test-utils/endpoints.ts";
import { type HttpSink, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { everyStoredRow, storedRows } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;

beforeAll(async () => {
  server = await startTestServer({ config: { capture_rate_limit: "off", actions_budget_ms: 600 } });
  owner = await signUp(server, { plan: "team" });
  sink = startHttpSink();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

// biome-ignore lint/suspicious/noExplicitAny: tests inspect the answered JSON as received.
type Result = any;

const withActions = (actions: Record<string, unknown>[]) =>
  createEndpointWithActions(server, owner, actions);

/** One capture at `/w/{slug}`: its answer, and the id of the request it stored. */
async function send(endpoint: CreatedEndpoint, body: unknown, init: RequestInit = {}) {
  const started = performance.now();
  const response = await fetch(
    `${server.url}/w/${endpoint.slug}${init.method ? "" : "/hook?x=1"}`,
    {
      method: "POST",
      body: typeof body === "string" ? body : JSON.stringify(body),
      ...init,
      headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
    },
  );
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  const listed = await callAs(server, owner, "GET", `/api/v1/endpoints/${endpoint.id}/requests`);
  return { response, text, elapsedMs, requestId: listed.body.data[0].id as string };
}

/** The recorded run of a request, once there is one. */
function runOf(endpoint: CreatedEndpoint, requestId: string): Promise<Result[]> {
  return pollUntil(
    async () => {
      const answer = await callAs(
        server,
        owner,
        "GET",
        `/api/v1/endpoints/${endpoint.id}/requests/${requestId}/actions`,
      );
      return answer.body.data?.length > 0 ? answer.body.data : undefined;
    },
    { what: "the action run" },
  );
}

const statuses = (results: Result[]) => results.map((r: Result) => `${r.type}:${r.status}`);

describe("the six types, after the capture is stored", () => {
  test("a chat notification on a GitHub push: condition, extract_json and a templated http_request", async () => {
    const endpoint = await withActions([
      { type: "condition", config: { "headers.x-github-event": { $eq: "push" } } },
      {
        type: "extract_json",
        config: {
          source: "body",
          extractions: [
            { path: "repository.full_name", variable: "repo" },
            { path: "commits[0].id", variable: "sha" },
          ],
        },
      },
      {
        type: "http_request",
        config: {
          url: `${sink.url}/chat?event=$request.headers.x-github-event$`,
          method: "POST",
          headers: { "x-repo": "$repo$" },
          body: { text: "$request.body.pusher.name$ pushed $sha$ to $repo$ via $request.method$" },
        },
      },
    ]);
    const before = sink.requests.length;
    const push = {
      repository: { full_name: "acme/api" },
      pusher: { name: "ada" },
      commits: [{ id: "abc123" }],
    };
    const sent = await send(endpoint, push, { headers: { "x-github-event": "push" } });
    expect(sent.response.status).toBe(200);
    expect(JSON.parse(sent.text).request_id).toBe(sent.requestId);
    const results = await runOf(endpoint, sent.requestId);
    expect(statuses(results)).toEqual(["condition:ok", "extract_json:ok", "http_request:ok"]);
    expect(results[1].output).toEqual({ variables: { repo: "acme/api", sha: "abc123" } });
    expect(results[2].output).toMatchObject({ status: 200, body: "ok", method: "POST" });
    const delivered = sink.requests[before];
    expect(delivered?.path).toBe("/chat");
    expect(delivered?.query).toBe("event=push");
    expect(delivered?.headers.get("x-repo")).toBe("acme/api");
    expect(delivered?.headers.get("x-weir-forwarded")).toBe("1");
    expect(delivered?.headers.get("content-type")).toBe("application/json");
    expect(JSON.parse(new TextDecoder().decode(delivered?.body))).toEqual({
      text: "ada pushed abc123 to acme/api via POST",
    });

    // Not a push: the condition stops the chain and nothing is sent.
    const ping = await send(endpoint, { zen: "hi" }, { headers: { "x-github-event": "ping" } });
    const stopped = await runOf(endpoint, ping.requestId);
    expect(statuses(stopped)).toEqual([
      "condition:ok",
      "extract_json:skipped",
      "http_request:skipped",
    ]);
    expect(stopped[0].output).toEqual({ matched: false });
    expect(stopped[1].output.reason).toBe("condition_not_met");
    expect(sink.requests.length).toBe(before + 1);
  });

  test("a counter and a last-seen value with run_script and store_variable, read by later captures", async () => {
    const endpoint = await withActions([
      {
        type: "run_script",
        config: { code: "variables.count = (Number(variables.count) || 0) + 1;" },
      },
      { type: "store_variable", config: { name: "count", value: "$count$" } },
      {
        type: "modify_response",
        config: {
          body: "count=$count$ previous=$last_id$ q=$request.query.x$ whole=$request.body.json$",
        },
      },
      { type: "store_variable", config: { name: "last_id", value: "$request.body.id$" } },
    ]);
    const first = await send(endpoint, { id: "a1" });
    expect(first.text).toBe('count=1 previous= q=1 whole={"id":"a1"}');
    const second = await send(endpoint, { id: "b2" });
    expect(second.text).toBe('count=2 previous=a1 q=1 whole={"id":"b2"}');
    const third = await send(endpoint, { id: "c3" });
    expect(third.text).toBe('count=3 previous=b2 q=1 whole={"id":"c3"}');
    const results = await runOf(endpoint, third.requestId);
    expect(results[1].output).toEqual({ name: "count", value: 3, persisted: true });
    expect(results[0].output.logs).toEqual([]);
  });

  test("a conditional answer with modify_response; the stored status is the one the sender got", async () => {
    const endpoint = await withActions([
      { type: "condition", config: { "body.amount": { $gt: 100 } } },
      {
        type: "modify_response",
        config: {
          status: 202,
          headers: { "x-weir-rule": "big-$request.body.amount$" },
          body: '{"review":true,"amount":$request.body.amount$}',
        },
      },
    ]);
    const big = await send(endpoint, { amount: 500 });
    expect(big.response.status).toBe(202);
    expect(big.response.headers.get("x-weir-rule")).toBe("big-500");
    expect(big.response.headers.get("content-security-policy")).toBe("sandbox");
    expect(JSON.parse(big.text)).toEqual({ review: true, amount: 500 });
    const stored = await callAs(
      server,
      owner,
      "GET",
      `/api/v1/endpoints/${endpoint.id}/requests/${big.requestId}`,
    );
    expect(String(stored.body.data?.status ?? stored.body.status)).toBe("202");

    const small = await send(endpoint, { amount: 5 });
    expect(small.response.status).toBe(200);
    expect(JSON.parse(small.text)).toEqual({
      message: "Webhook received",
      request_id: small.requestId,
    });
  });

  test("{{SECRET}} in an http_request's url and headers is opened for the send only", async () => {
    const secret = await callAs(server, owner, "POST", "/api/v1/secrets", {
      name: "CHAT_TOKEN",
      value: "s3cret-value",
    });
    expect(secret.status).toBe(201);
    const endpoint = await withActions([
      {
        type: "http_request",
        config: {
          url: `${sink.url}/hooks/{{CHAT_TOKEN}}`,
          method: "POST",
          headers: { authorization: "Bearer {{CHAT_TOKEN}}" },
        },
      },
      { type: "http_request", config: { url: `${sink.url}/{{NO_SUCH_SECRET}}`, method: "POST" } },
    ]);
    const sent = await send(endpoint, {});
    const results = await runOf(endpoint, sent.requestId);
    const delivered = sink.requests.find((r) => r.path === "/hooks/s3cret-value");
    expect(delivered?.headers.get("authorization")).toBe("Bearer s3cret-value");
    expect(results[0]).toMatchObject({
      status: "ok",
      output: { url: `${sink.url}/hooks/{{CHAT_TOKEN}}` },
    });
    expect(results[1]).toMatchObject({ status: "error", error: "missing_secret: NO_SUCH_SECRET" });
    const tried = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/endpoints/${endpoint.id}/actions/test`,
      {
        request_id: sent.requestId,
      },
    );
    expect(tried.body.data[0].output.would_send.headers).toEqual({
      authorization: "Bearer {{CHAT_TOKEN}}",
    });
    const runs = (await everyStoredRow(server, "action_runs")).map((run) => run.results);
    expect(JSON.stringify(runs)).not.toContain("s3cret-value");
    expect(server.logs.join("\n")).not.toContain("s3cret-value");
  });

  test("a condition reads variables a script set earlier in the run", async () => {
    const endpoint = await withActions([
      { type: "run_script", config: { code: "return { vip: request.body.plan === 'gold' };" } },
      { type: "condition", config: { "variables.vip": true } },
      { type: "modify_response", config: { status: 201, body: "welcome back" } },
    ]);
    const gold = await send(endpoint, { plan: "gold" });
    expect([gold.response.status, gold.text]).toEqual([201, "welcome back"]);
    const basic = await send(endpoint, { plan: "basic" });
    expect(basic.response.status).toBe(200);
    expect(statuses(await runOf(endpoint, basic.requestId))).toEqual([
      "run_script:ok",
      "condition:ok",
      "modify_response:skipped",
    ]);
  });

  test("$http.status$ and $http.body.<path>$ carry an http_request's answer to later actions", async () => {
    sink.answer((request) =>
      request.path === "/ticket"
        ? {
            status: 201,
            body: '{"ticket":{"id":42}}',
            headers: { "content-type": "application/json" },
          }
        : { status: 200, body: "ok" },
    );
    const endpoint = await withActions([
      { type: "http_request", config: { url: `${sink.url}/ticket`, method: "GET" } },
      {
        type: "extract_json",
        config: { source: "http.body", extractions: [{ path: "ticket.id", variable: "ticket" }] },
      },
      {
        type: "modify_response",
        config: { body: "ticket $http.body.ticket.id$ answered $http.status$, extracted $ticket$" },
      },
    ]);
    const sent = await send(endpoint, {});
    sink.answer(() => ({ status: 200, body: "ok" }));
    expect(sent.text).toBe("ticket 42 answered 201, extracted 42");
  });

  test("a disabled action is skipped; a failing one is recorded and the chain, capture and endpoint go on", async () => {
    const endpoint = await withActions([
      { type: "run_script", config: { code: 'throw new Error("boom");' } },
      { type: "store_variable", enabled: false, config: { name: "never", value: 1 } },
      { type: "http_request", config: { url: "http://127.0.0.1:9/closed", method: "POST" } },
      { type: "run_script", config: { code: "return { after: request.body.n * 2 };" } },
      { type: "modify_response", config: { body: "after=$after$" } },
    ]);
    const sent = await send(endpoint, { n: 21 });
    expect(sent.response.status).toBe(200);
    expect(sent.text).toBe("after=42");
    const results = await runOf(endpoint, sent.requestId);
    expect(statuses(results)).toEqual([
      "run_script:error",
      "store_variable:skipped",
      "http_request:error",
      "run_script:ok",
      "modify_response:ok",
    ]);
    expect(results[0].error).toContain("boom");
    expect(results[1].output).toEqual({ reason: "disabled" });
    expect(results[2].error).toContain("connection_refused");
    for (const result of results) expect(result.duration_ms).toBeNumber();
    const again = await send(endpoint, { n: 1 });
    expect(again.response.status).toBe(200);
  });

  test("outputs and stored values are bounded: a huge script result is cut, a huge variable refused", async () => {
    const endpoint = await withActions([
      { type: "run_script", config: { code: 'return "x".repeat(100000);' } },
      { type: "store_variable", config: { name: "whole", value: "$request.body.json$" } },
    ]);
    const sent = await send(endpoint, { blob: "y".repeat(70_000) });
    expect(sent.response.status).toBe(200);
    const results = await runOf(endpoint, sent.requestId);
    expect(results[0].status).toBe("ok");
    expect(results[0].output).toMatchObject({ truncated: true, size: expect.any(Number) });
    expect(results[0].output.preview.length).toBe(65_536);
    expect(results[1]).toMatchObject({ status: "error", output: { name: "whole" } });
    expect(results[1].error).toContain("at most 65536");
    const variables = await storedRows(server, "endpoint_variables", "endpoint_id", endpoint.id);
    expect(variables).toEqual([]);
  });
});
