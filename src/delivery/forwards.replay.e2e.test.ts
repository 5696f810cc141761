import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import {
  type CreatedEndpoint,
  callAs,
  captureAt,
  createDebugEndpoint,
} from "../test-utils/endpoints.ts";
import { forwardsOf as listForwards } from "../test-utils/forwards.ts";
import { freePort } from "../test-utils/free-port.ts";
import { type HttpSink, type SinkRequest, startHttpSink } from "../test-utils/http-sink.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
let sink: HttpSink;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "enterprise" });
  sink = startHttpSink();
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
});

const forwardsOf = (endpoint: CreatedEndpoint, requestId: string) =>
  listForwards(server, owner, endpoint, requestId);

describe("replay", () => {
  let endpoint: CreatedEndpoint;
  let requestId: string;
  const body = new Uint8Array([0, 1, 2, 254, 255]);

  beforeAll(async () => {
    endpoint = await createDebugEndpoint(server, owner, {});
    requestId = await captureAt(server, `/w/${endpoint.slug}/sub?q=2`, {
      method: "PATCH",
      headers: { "x-tag": "replayed" },
      body,
    });
  });
  const replayUrl = () => `/api/v1/endpoints/${endpoint.id}/requests/${requestId}/replay`;

  test("re-sends now to the given URL → 201 {data: forward}", async () => {
    sink.answer(() => ({ status: 201, body: "again" }));
    const answer = await callAs(server, owner, "POST", replayUrl(), { url: `${sink.url}/replay` });
    expect(answer.status).toBe(201);
    expect(answer.body.data).toMatchObject({
      request_id: requestId,
      url: `${sink.url}/replay/sub?q=2`,
      method: "PATCH",
      status_code: 201,
      response_body: "again",
      attempt: 1,
      error: null,
    });
    const got = sink.requests.find((r) => r.path === "/replay/sub") as SinkRequest;
    expect(got.body).toEqual(body);
    expect(got.headers.get("x-tag")).toBe("replayed");
    expect(got.headers.get("x-weir-forwarded")).toBe("1");
    expect((await forwardsOf(endpoint, requestId)).map((f: { id: string }) => f.id)).toContain(
      answer.body.data.id,
    );
  });

  test("without a url: the endpoint's forward_url, else 422", async () => {
    const none = await callAs(server, owner, "POST", replayUrl(), {});
    expect([none.status, Object.keys(none.body.errors)]).toEqual([422, ["url"]]);
    const noBody = await callAs(server, owner, "POST", replayUrl());
    expect(noBody.status).toBe(422);
    await callAs(server, owner, "PATCH", `/api/v1/debug-endpoints/${endpoint.id}`, {
      debug_endpoint: { forward_url: `${sink.url}/configured` },
    });
    const answer = await callAs(server, owner, "POST", replayUrl(), {});
    expect([answer.status, answer.body.data.url]).toEqual([201, `${sink.url}/configured/sub?q=2`]);
  });

  test.each(["ftp://x.example", "not a url", 42])("url %p → 422", async (url) => {
    const answer = await callAs(server, owner, "POST", replayUrl(), { url });
    expect([answer.status, Object.keys(answer.body.errors)]).toEqual([422, ["url"]]);
  });

  test("an unknown request → 404; a replay to a closed port → 201 with the error", async () => {
    const unknown = replayUrl().replace(requestId, "01900000-0000-7000-8000-000000000000");
    expect((await callAs(server, owner, "POST", unknown, { url: sink.url })).status).toBe(404);
    const closed = await callAs(server, owner, "POST", replayUrl(), {
      url: `http://127.0.0.1:${freePort()}`,
    });
    expect([closed.status, closed.body.data.status_code]).toEqual([201, null]);
    expect(closed.body.data.error).toStartWith("connection_refused: ");
    // The failed replay is in the log (warn), naming its endpoint and error, never the body.
    const lines = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const logged = lines.find((l) => l.msg === "replay attempt failed");
    expect(logged).toMatchObject({ level: "warn", error_code: "connection_refused" });
    expect(String(logged?.destination)).toStartWith("replay:");
  });
});
