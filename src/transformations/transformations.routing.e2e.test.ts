import { afterAll, beforeAll, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// How destinations name transformations and secrets: only the organization's own
// transformations, and `{{NAME}}` templates kept as written in every read.
let server: TestServer;
let owner: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  stranger = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

let sourcesNamed = 0;
// A source of its own per bridge: source names are unique in an organization.
const bridge = (destinations: unknown[]) => ({
  name: "Chat",
  source: { name: `GitHub ${++sourcesNamed}`, type: "webhook" },
  destinations,
});

async function transformationOf(account: TestAccount) {
  const answer = await callAs(server, account, "POST", "/api/v1/transformations", {
    name: "Identity",
    code: 'addHandler("transform", (request) => request);',
  });
  expect(answer.status).toBe(201);
  return answer.body.data.id as string;
}

// Needs the routing room, which does not run on PostgreSQL yet.
test("a destination takes its organization's transformation_id; another's is a 422", async () => {
  const mine = await transformationOf(owner);
  const theirs = await transformationOf(stranger);
  const http = { name: "Orders", type: "http", url: "http://127.0.0.1:9/hook" };
  const created = await callAs(
    server,
    owner,
    "POST",
    "/api/v1/bridges",
    bridge([{ ...http, transformation_id: mine }]),
  );
  expect(created.status).toBe(201);
  expect(created.body.data.destinations[0].transformation_id).toBe(mine);
  const refused = await callAs(
    server,
    owner,
    "POST",
    "/api/v1/bridges",
    bridge([{ ...http, transformation_id: theirs }]),
  );
  expect(refused.status).toBe(422);
  expect(refused.body.errors["destinations[0].transformation_id"]).toBeArray();
  const added = await callAs(
    server,
    owner,
    "POST",
    `/api/v1/bridges/${created.body.data.id}/destinations`,
    {
      ...http,
      name: "Second",
      transformation_id: "01900000-0000-7000-8000-000000000000",
    },
  );
  expect([added.status, Object.keys(added.body.errors)]).toEqual([422, ["transformation_id"]]);
});

// Needs the routing room, which does not run on PostgreSQL yet.
test("reads show {{NAME}} templates as written, never the secret's value", async () => {
  for (const [name, value] of [
    ["SLACK_URL", "http://127.0.0.1:9/services/secret-path-1"],
    ["TG_TOKEN", "999:secret-token-value"],
    ["HOOK_KEY", "secret-header-value"],
  ]) {
    expect((await callAs(server, owner, "POST", "/api/v1/secrets", { name, value })).status).toBe(
      201,
    );
  }
  const created = await callAs(
    server,
    owner,
    "POST",
    "/api/v1/bridges",
    bridge([
      { name: "Slack", type: "slack", webhook_url: "{{SLACK_URL}}" },
      { name: "Telegram", type: "telegram", bot_token: "{{TG_TOKEN}}", chat_id: "-100" },
      {
        name: "Hook",
        type: "http",
        url: "http://127.0.0.1:9/h",
        headers: { "x-key": "Bearer {{HOOK_KEY}}" },
      },
    ]),
  );
  expect(created.status).toBe(201);
  const read = await callAs(server, owner, "GET", `/api/v1/bridges/${created.body.data.id}`);
  const text = JSON.stringify([created.body, read.body]);
  expect(text).not.toContain("secret-");
  const [slack, telegram, hook] = read.body.data.destinations;
  expect(slack.webhook_url).toBe("{{SLACK_URL}}");
  expect(telegram.bot_token).toBe("{{TG_TOKEN}}");
  expect(hook.headers["x-key"]).toBe("Bearer {{HOOK_KEY}}");
});
