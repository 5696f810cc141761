import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs, createDebugEndpoint } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

let server: TestServer;
let owner: TestAccount;
beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

const call = (method: string, path: string, body?: unknown) =>
  callAs(server, owner, method, path, body);

async function secret(name: string) {
  expect((await call("POST", "/api/v1/secrets", { name, value: "v" })).status).toBe(201);
}

// Needs the routing room, which does not run on PostgreSQL yet.
test("a transformation a destination runs is not deleted: 409 in_use naming the destination", async () => {
  const transformation = await call("POST", "/api/v1/transformations", {
    name: "T",
    code: 'addHandler("transform", (request) => request);',
  });
  const id = transformation.body.data.id;
  const bridge = await call("POST", "/api/v1/bridges", {
    name: "B",
    source: { name: "S transform", type: "webhook" },
    destinations: [
      { name: "Runs it", type: "http", url: "http://127.0.0.1:9/", transformation_id: id },
    ],
  });
  const destination = bridge.body.data.destinations[0];
  const refused = await call("DELETE", `/api/v1/transformations/${id}`);
  expect([refused.status, refused.body]).toEqual([
    409,
    {
      error: "in_use",
      used_by: [
        { bridge_id: bridge.body.data.id, destination_id: destination.id, name: "Runs it" },
      ],
    },
  ]);
  const path = `/api/v1/bridges/${bridge.body.data.id}/destinations/${destination.id}`;
  expect((await call("PATCH", path, { transformation_id: null })).status).toBe(200);
  expect((await call("DELETE", `/api/v1/transformations/${id}`)).status).toBe(204);
});

// Needs the routing room, which does not run on PostgreSQL yet.
test("a secret a destination or an alert rule refers to is not deleted: 409 naming each", async () => {
  await secret("HOOK_TOKEN");
  await secret("CHAT_TOKEN");
  await secret("UNUSED_ONE");
  const bridge = await call("POST", "/api/v1/bridges", {
    name: "B",
    source: { name: "S secret", type: "webhook" },
    destinations: [
      {
        name: "Header",
        type: "http",
        url: "http://127.0.0.1:9/",
        headers: { authorization: "Bearer {{ HOOK_TOKEN }}" },
      },
      { name: "Bot", type: "telegram", bot_token: "{{CHAT_TOKEN}}", chat_id: "1" },
    ],
  });
  expect(bridge.status).toBe(201);
  const rule = await call("POST", "/api/v1/alert-rules", {
    name: "Pager",
    condition: { type: "issue_created" },
    channel: { type: "slack", webhook_url: "https://hooks.example/{{HOOK_TOKEN}}" },
  });
  expect(rule.status).toBe(201);
  const [header, bot] = bridge.body.data.destinations;
  const hook = await call("DELETE", "/api/v1/secrets/HOOK_TOKEN");
  expect([hook.status, hook.body]).toEqual([
    409,
    {
      error: "in_use",
      used_by: [
        { bridge_id: bridge.body.data.id, destination_id: header.id, name: "Header" },
        { alert_rule_id: rule.body.data.id, name: "Pager" },
      ],
    },
  ]);
  const chat = await call("DELETE", "/api/v1/secrets/CHAT_TOKEN");
  expect(chat.body.used_by).toEqual([
    { bridge_id: bridge.body.data.id, destination_id: bot.id, name: "Bot" },
  ]);
  expect((await call("DELETE", "/api/v1/secrets/UNUSED_ONE")).status).toBe(204);
  expect((await call("GET", "/api/v1/secrets/HOOK_TOKEN")).status).toBe(200);
});

test("a secret an endpoint's action sends with is not deleted: 409 naming the action", async () => {
  await secret("ACTION_TOKEN");
  const endpoint = await createDebugEndpoint(server, owner);
  const action = await call("POST", `/api/v1/endpoints/${endpoint.id}/actions`, {
    type: "http_request",
    name: "Notify",
    config: {
      url: "http://127.0.0.1:9/notify",
      method: "POST",
      headers: { authorization: "Bearer {{ACTION_TOKEN}}" },
    },
  });
  expect(action.status).toBe(201);
  const refused = await call("DELETE", "/api/v1/secrets/ACTION_TOKEN");
  expect([refused.status, refused.body]).toEqual([
    409,
    {
      error: "in_use",
      used_by: [{ endpoint_id: endpoint.id, action_id: action.body.data.id, name: "Notify" }],
    },
  ]);
  const actionPath = `/api/v1/endpoints/${endpoint.id}/actions/${action.body.data.id}`;
  expect((await call("DELETE", actionPath)).status).toBe(204);
  expect((await call("DELETE", "/api/v1/secrets/ACTION_TOKEN")).status).toBe(204);
});

test("a secret a monitor's URL or headers name is not deleted: 409 naming the monitor", async () => {
  await secret("PROBE_TOKEN");
  const monitor = await call("POST", "/api/v1/uptime-monitors", {
    name: "API health",
    type: "http",
    url: "http://127.0.0.1:9/health",
    headers: { authorization: "Bearer {{PROBE_TOKEN}}" },
    paused: true,
  });
  expect(monitor.status).toBe(201);
  const refused = await call("DELETE", "/api/v1/secrets/PROBE_TOKEN");
  expect([refused.status, refused.body]).toEqual([
    409,
    { error: "in_use", used_by: [{ monitor_id: monitor.body.data.id, name: "API health" }] },
  ]);
  expect((await call("DELETE", `/api/v1/uptime-monitors/${monitor.body.data.id}`)).status).toBe(
    204,
  );
  expect((await call("DELETE", "/api/v1/secrets/PROBE_TOKEN")).status).toBe(204);
});
