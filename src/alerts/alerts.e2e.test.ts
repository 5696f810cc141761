import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// Alert rules CRUD through the real server: envelopes, validation naming each field, the webhook
// channel's signing secret shown once and sealed at rest, roles and another organization's 404.
let server: TestServer;
let owner: TestAccount;
let member: TestAccount;
let stranger: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  owner = await signUp(server, { plan: "team" });
  member = await owner.addMember("member");
  stranger = await signUp(server, { plan: "team" });
});
afterAll(() => server.stop());

const slackRule = {
  name: "Billing failing",
  condition: { type: "issue_created" },
  channel: { type: "slack", webhook_url: "https://hooks.slack.example/services/T0/B0/x" },
};

const create = (account: TestAccount, body: unknown) =>
  callAs(server, account, "POST", "/api/v1/alert-rules", body);

describe("CRUD", () => {
  test("create answers 201 {data} with every field; get, list, patch and delete follow", async () => {
    const created = await create(owner, slackRule);
    expect(created.status).toBe(201);
    const rule = created.body.data;
    expect(rule).toEqual({
      id: expect.any(String),
      name: "Billing failing",
      condition: { type: "issue_created" },
      channel: { type: "slack", webhook_url: slackRule.channel.webhook_url },
      enabled: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const got = await callAs(server, member, "GET", `/api/v1/alert-rules/${rule.id}`);
    expect([got.status, got.body.data]).toEqual([200, rule]);

    const patched = await callAs(server, owner, "PATCH", `/api/v1/alert-rules/${rule.id}`, {
      enabled: false,
      condition: { type: "occurrence_threshold", value: 100 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      name: "Billing failing",
      enabled: false,
      condition: { type: "occurrence_threshold", value: 100 },
      channel: slackRule.channel,
    });

    const list = await callAs(server, member, "GET", "/api/v1/alert-rules?page_size=1");
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, page_size: 1, total: expect.any(Number) });
    expect(list.body.data).toHaveLength(1);

    const removed = await callAs(server, owner, "DELETE", `/api/v1/alert-rules/${rule.id}`);
    expect(removed.status).toBe(204);
    const gone = await callAs(server, owner, "GET", `/api/v1/alert-rules/${rule.id}`);
    expect(gone.status).toBe(404);
  });

  test("a list is newest first and counts only the caller's organization", async () => {
    const account = await signUp(server, { plan: "team" });
    for (const name of ["first", "second", "third"]) await create(account, { ...slackRule, name });
    const list = await callAs(server, account, "GET", "/api/v1/alert-rules");
    expect(list.body.total).toBe(3);
    expect(list.body.data.map((rule: { name: string }) => rule.name)).toEqual([
      "third",
      "second",
      "first",
    ]);
  });

  test("each channel type and condition is accepted; {{SECRET}} templates are kept as written", async () => {
    const cases = [
      { type: "discord", webhook_url: "{{DISCORD_URL}}" },
      { type: "telegram", bot_token: "{{TG_TOKEN}}", chat_id: "-100123" },
      { type: "slack", webhook_url: "http://10.0.0.5/hooks/{{SLACK_PATH}}" },
    ];
    const conditions = [
      { type: "open_for_days", value: 2.5 },
      { type: "high_priority_destination" },
      { type: "occurrence_threshold", value: 1 },
    ];
    for (const [i, channel] of cases.entries()) {
      const answer = await create(owner, {
        name: `rule ${i}`,
        condition: conditions[i],
        channel,
      });
      expect(answer.status).toBe(201);
      expect(answer.body.data.channel).toEqual(channel);
      expect(answer.body.data.condition).toEqual(conditions[i]);
    }
  });
});

describe("the webhook channel's signing secret", () => {
  test("is shown once on create, never on reads, kept across URL changes, sealed at rest", async () => {
    const created = await create(owner, {
      name: "To PagerDuty",
      condition: { type: "issue_created" },
      channel: { type: "webhook", url: "https://events.example/weir", headers: { "X-Key": "k" } },
    });
    expect(created.status).toBe(201);
    const { id, channel } = created.body.data;
    expect(channel.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const got = await callAs(server, owner, "GET", `/api/v1/alert-rules/${id}`);
    expect(got.body.data.channel).toEqual({
      type: "webhook",
      url: "https://events.example/weir",
      headers: { "X-Key": "k" },
    });
    const moved = await callAs(server, owner, "PATCH", `/api/v1/alert-rules/${id}`, {
      channel: { type: "webhook", url: "https://events.example/v2" },
    });
    expect(moved.body.data.channel.signing_secret).toBeUndefined();
    const [stored] = await serverRows<{ signing_secret: string }>(
      server,
      "SELECT signing_secret FROM alert_rules WHERE id = $1",
      [id],
    );
    expect(stored?.signing_secret).toStartWith("v1.");
    expect(stored?.signing_secret).not.toContain(channel.signing_secret.slice(6));
  });

  test("a chat channel that becomes a webhook gets a secret, shown in that answer", async () => {
    const created = await create(owner, slackRule);
    expect(created.body.data.channel.signing_secret).toBeUndefined();
    const patched = await callAs(
      server,
      owner,
      "PATCH",
      `/api/v1/alert-rules/${created.body.data.id}`,
      { channel: { type: "webhook", url: "https://events.example/weir" } },
    );
    expect(patched.body.data.channel.signing_secret).toStartWith("whsec_");
  });
});

describe("validation: 422 naming each field", () => {
  const cases: [unknown, string[]][] = [
    [{}, ["name", "condition", "channel"]],
    [{ ...slackRule, name: "" }, ["name"]],
    [{ ...slackRule, name: "x".repeat(256) }, ["name"]],
    [{ ...slackRule, condition: { type: "sometimes" } }, ["condition.type"]],
    [{ ...slackRule, condition: { type: "occurrence_threshold" } }, ["condition.value"]],
    [{ ...slackRule, condition: { type: "occurrence_threshold", value: 0 } }, ["condition.value"]],
    [
      { ...slackRule, condition: { type: "occurrence_threshold", value: 2.5 } },
      ["condition.value"],
    ],
    [{ ...slackRule, condition: { type: "open_for_days", value: 0 } }, ["condition.value"]],
    [{ ...slackRule, condition: { type: "open_for_days", value: "3" } }, ["condition.value"]],
    [{ ...slackRule, condition: { type: "issue_created", value: 3 } }, ["condition.value"]],
    [{ ...slackRule, channel: { type: "pager" } }, ["channel.type"]],
    [{ ...slackRule, channel: { type: "slack" } }, ["channel.webhook_url"]],
    [
      { ...slackRule, channel: { type: "discord", webhook_url: "ftp://x" } },
      ["channel.webhook_url"],
    ],
    [
      { ...slackRule, channel: { type: "slack", webhook_url: "http://169.254.169.254/latest" } },
      ["channel.webhook_url"],
    ],
    [{ ...slackRule, channel: { type: "telegram", bot_token: "1:a" } }, ["channel.chat_id"]],
    [{ ...slackRule, channel: { type: "webhook", url: "nope" } }, ["channel.url"]],
    [
      {
        ...slackRule,
        channel: { type: "webhook", url: "https://x.example", headers: { Host: "y" } },
      },
      ["channel.headers.Host"],
    ],
    [{ ...slackRule, enabled: "yes" }, ["enabled"]],
  ];
  test.each(cases.map(([body, fields], i) => [i, fields.join(" "), body, fields] as const))(
    "case %d: %s",
    async (_i, _label, body, fields) => {
      const answer = await create(owner, body);
      expect(answer.status).toBe(422);
      expect(answer.body.error).toBe("validation_failed");
      expect(Object.keys(answer.body.errors).sort()).toEqual([...fields].sort());
    },
  );

  test("a bad PATCH changes nothing", async () => {
    const { id } = (await create(owner, slackRule)).body.data;
    const answer = await callAs(server, owner, "PATCH", `/api/v1/alert-rules/${id}`, {
      name: "renamed",
      condition: { type: "open_for_days", value: -1 },
    });
    expect(answer.status).toBe(422);
    const got = await callAs(server, owner, "GET", `/api/v1/alert-rules/${id}`);
    expect(got.body.data.name).toBe(slackRule.name);
  });

  test("malformed JSON is a 400 and bad pagination a 422", async () => {
    const raw = await fetch(`${server.url}/api/v1/alert-rules`, {
      method: "POST",
      headers: { ...owner.headers, "content-type": "application/json" },
      body: "{",
    });
    expect(raw.status).toBe(400);
    const page = await callAs(server, owner, "GET", "/api/v1/alert-rules?page=0");
    expect([page.status, Object.keys(page.body.errors)]).toEqual([422, ["page"]]);
  });
});

describe("who may do what", () => {
  test("members read; only admins create, change, delete and test", async () => {
    const { id } = (await create(owner, slackRule)).body.data;
    expect((await callAs(server, member, "GET", "/api/v1/alert-rules")).status).toBe(200);
    expect((await callAs(server, member, "GET", `/api/v1/alert-rules/${id}/alerts`)).status).toBe(
      200,
    );
    const writes: [string, string, unknown][] = [
      ["POST", "/api/v1/alert-rules", slackRule],
      ["PATCH", `/api/v1/alert-rules/${id}`, { enabled: false }],
      ["DELETE", `/api/v1/alert-rules/${id}`, undefined],
      ["POST", `/api/v1/alert-rules/${id}/test`, undefined],
      ["POST", `/api/v1/alert-rules/${id}/rotate-secret`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const answer = await callAs(server, member, method, path, body);
      expect([method, path, answer.status, answer.body.error]).toEqual([
        method,
        path,
        403,
        "forbidden",
      ]);
    }
    const admin = await owner.addMember("admin");
    expect((await create(admin, slackRule)).status).toBe(201);
    expect((await callAs(server, null, "GET", "/api/v1/alert-rules")).status).toBe(401);
  });

  test("another organization's rule is a 404 for every operation", async () => {
    const { id } = (await create(owner, slackRule)).body.data;
    const calls: [string, string, unknown][] = [
      ["GET", `/api/v1/alert-rules/${id}`, undefined],
      ["PATCH", `/api/v1/alert-rules/${id}`, { name: "mine now" }],
      ["DELETE", `/api/v1/alert-rules/${id}`, undefined],
      ["POST", `/api/v1/alert-rules/${id}/test`, undefined],
      ["GET", `/api/v1/alert-rules/${id}/alerts`, undefined],
      ["POST", `/api/v1/alert-rules/${id}/rotate-secret`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const answer = await callAs(server, stranger, method, path, body);
      expect([method, answer.status]).toEqual([method, 404]);
    }
    const list = await callAs(server, stranger, "GET", "/api/v1/alert-rules");
    expect(list.body.data.some((rule: { id: string }) => rule.id === id)).toBe(false);
    const still = await callAs(server, owner, "GET", `/api/v1/alert-rules/${id}`);
    expect(still.body.data.name).toBe(slackRule.name);
  });
});
