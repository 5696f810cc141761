import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { type SinkRequest, startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// Each channel's alert as its platform receives it, sent by `POST /alert-rules/{id}/test` through
// the outbox to local stand-ins for Slack, Discord, Telegram and a webhook receiver.
let server: TestServer;
let owner: TestAccount;
const sink = startHttpSink();
const telegram = startHttpSink();

beforeAll(async () => {
  server = await startTestServer({
    config: { telegram_api_base: telegram.url, retry_base_ms: 50, retry_cap_ms: 100 },
  });
  owner = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
  await sink.stop();
  await telegram.stop();
});

const decode = (request: SinkRequest) => new TextDecoder().decode(request.body);

async function ruleWith(
  channel: Record<string, unknown>,
  condition: unknown = { type: "issue_created" },
) {
  const answer = await callAs(server, owner, "POST", "/api/v1/alert-rules", {
    name: "Payments down",
    condition,
    channel,
  });
  expect(answer.status).toBe(201);
  return answer.body.data;
}

async function sendTest(ruleId: string) {
  const answer = await callAs(server, owner, "POST", `/api/v1/alert-rules/${ruleId}/test`);
  expect(answer.status).toBe(202);
  expect(answer.body.data).toEqual({
    alert_id: expect.any(String),
    delivery_id: expect.any(String),
  });
  return answer.body.data as { alert_id: string; delivery_id: string };
}

const arrivedAt = (target: { requests: SinkRequest[] }, path: string) =>
  pollUntil(() => target.requests.find((r) => r.path === path), { what: `a request at ${path}` });

/** The rule's alert (by id) once its delivery has the wanted status. */
const alertWhen = (ruleId: string, alertId: string, status: string) =>
  pollUntil(
    async () => {
      const list = await callAs(server, owner, "GET", `/api/v1/alert-rules/${ruleId}/alerts`);
      const alert = list.body.data.find((a: { id: string }) => a.id === alertId);
      return alert?.delivery?.status === status ? alert : undefined;
    },
    { what: `the alert ${status}` },
  );

describe("each channel's test alert", () => {
  test("slack: {text, blocks} with the headline, the failure and a link, unsigned", async () => {
    const rule = await ruleWith({ type: "slack", webhook_url: `${sink.url}/slack` });
    const { alert_id } = await sendTest(rule.id);
    const received = await arrivedAt(sink, "/slack");
    const payload = JSON.parse(decode(received));
    expect(payload.text).toStartWith("[test] New issue: Sample destination (http_error 500)");
    expect(payload.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "[test] New issue: Sample destination (http_error 500)" },
    });
    expect(payload.blocks[1].text.text).toContain("Alert rule: Payments down.");
    expect(JSON.stringify(payload.blocks.at(-1))).toMatch(
      /:\/\/[^/]+\/issues\/[0-9a-f-]+\|Open in Weir/,
    );
    expect(received.headers.get("webhook-signature")).toBeNull();
    const alert = await alertWhen(rule.id, alert_id, "delivered");
    expect(alert).toMatchObject({ issue_id: null, test: true, delivery: { attempts: 1 } });
  });

  test("discord: one embed titled with the condition's headline", async () => {
    const rule = await ruleWith(
      { type: "discord", webhook_url: `${sink.url}/discord` },
      { type: "occurrence_threshold", value: 50 },
    );
    await sendTest(rule.id);
    const payload = JSON.parse(decode(await arrivedAt(sink, "/discord")));
    expect(payload.embeds).toHaveLength(1);
    expect(payload.embeds[0].title).toBe(
      "[test] Issue reached 50 failures: Sample destination (http_error 500)",
    );
    expect(payload.embeds[0].description).toContain("50 failures since");
    expect(payload.embeds[0].url).toMatch(/^https?:\/\/[^/]+\/issues\/[0-9a-f-]+$/);
  });

  test("telegram: sendMessage at WEIR_TELEGRAM_API_BASE with the chat id, in HTML parse mode", async () => {
    const rule = await ruleWith(
      { type: "telegram", bot_token: "123:abc", chat_id: "-1001" },
      { type: "open_for_days", value: 3 },
    );
    await sendTest(rule.id);
    const payload = JSON.parse(decode(await arrivedAt(telegram, "/bot123:abc/sendMessage")));
    expect(payload).toMatchObject({ chat_id: "-1001", parse_mode: "HTML" });
    expect(payload.text).toStartWith(
      "<b>[test] Issue open for 3 days: Sample destination (http_error 500)</b>",
    );
  });

  test("webhook: the alert document, signed with the rule's whsec_ secret (Standard Webhooks)", async () => {
    const rule = await ruleWith(
      { type: "webhook", url: `${sink.url}/hook`, headers: { "X-Team": "payments" } },
      { type: "high_priority_destination" },
    );
    const { alert_id } = await sendTest(rule.id);
    const received = await arrivedAt(sink, "/hook");
    const body = decode(received);
    const headers = Object.fromEntries(received.headers.entries());
    expect(headers["x-team"]).toBe("payments");
    const document = new Webhook(rule.channel.signing_secret).verify(body, headers);
    expect(document).toEqual({
      type: "issue.high_priority_destination",
      title: "[test] High-priority destination failing: Sample destination (http_error 500)",
      text: expect.stringContaining("Bridge Sample bridge (source Sample source)"),
      link: expect.stringMatching(/^https?:\/\/[^/]+\/issues\/0{8}-/),
      occurred_at: expect.any(String),
      data: {
        alert_id,
        test: true,
        alert_rule: {
          id: rule.id,
          name: "Payments down",
          condition: { type: "high_priority_destination", value: null },
        },
        issue: {
          id: "00000000-0000-0000-0000-000000000000",
          bridge_id: expect.any(String),
          destination_id: expect.any(String),
          status: "open",
          error_type: "http_error",
          error_code: "500",
          error_message: expect.any(String),
          occurrence_count: 3,
          first_occurrence_at: expect.any(String),
          last_occurrence_at: expect.any(String),
          resolved_at: null,
          last_success_at: null,
        },
        bridge: { id: expect.any(String), name: "Sample bridge" },
        source: { name: "Sample source" },
        destination: {
          id: expect.any(String),
          name: "Sample destination",
          type: "http",
          priority: "high",
        },
        issue_url: expect.stringMatching(/^https?:\/\/[^/]+\/issues\/[^/]+$/),
      },
    });
    const other = await ruleWith({ type: "webhook", url: `${sink.url}/hook` });
    expect(() => new Webhook(other.channel.signing_secret).verify(body, headers)).toThrow();
  });
});

describe("rotating the webhook channel's signing secret", () => {
  test("the new secret is shown once; for 24 h alerts carry both signatures, new first", async () => {
    const rule = await ruleWith({ type: "webhook", url: `${sink.url}/rotated` });
    const first = rule.channel.signing_secret as string;
    const path = `/api/v1/alert-rules/${rule.id}/rotate-secret`;
    const rotated = await callAs(server, owner, "POST", path);
    expect(rotated.status).toBe(200);
    const second = rotated.body.data.signing_secret as string;
    expect(second).toStartWith("whsec_");
    expect(second).not.toBe(first);
    await sendTest(rule.id);
    const received = await arrivedAt(sink, "/rotated");
    const body = decode(received);
    const headers = Object.fromEntries(received.headers.entries());
    expect(headers["webhook-signature"]?.split(" ")).toHaveLength(2);
    for (const secret of [first, second]) {
      expect(new Webhook(secret).verify(body, headers)).toMatchObject({ type: "issue.created" });
    }
    // A second rotation keeps only the secret it replaces.
    const third = (await callAs(server, owner, "POST", path)).body.data.signing_secret as string;
    sink.requests.length = 0;
    await sendTest(rule.id);
    const again = await arrivedAt(sink, "/rotated");
    const againHeaders = Object.fromEntries(again.headers.entries());
    expect(new Webhook(third).verify(decode(again), againHeaders)).toBeDefined();
    expect(new Webhook(second).verify(decode(again), againHeaders)).toBeDefined();
    expect(() => new Webhook(first).verify(decode(again), againHeaders)).toThrow();
    const read = await callAs(server, owner, "GET", `/api/v1/alert-rules/${rule.id}`);
    expect(JSON.stringify(read.body)).not.toContain(third);
  });

  test("a chat channel has no secret to rotate: 422", async () => {
    const rule = await ruleWith({ type: "slack", webhook_url: `${sink.url}/slack` });
    const answer = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/alert-rules/${rule.id}/rotate-secret`,
    );
    expect([answer.status, Object.keys(answer.body.errors)]).toEqual([422, ["channel.type"]]);
  });
});

describe("{{SECRET}} values and failures", () => {
  test("templates are filled from the organization's secrets at send time", async () => {
    for (const [name, value] of [
      ["SLACK_HOOK", `${sink.url}/from-secret`],
      ["TG_TOKEN", "999:secret"],
      ["HOOK_KEY", "s3cr3t"],
    ]) {
      const saved = await callAs(server, owner, "POST", "/api/v1/secrets", { name, value });
      expect(saved.status).toBe(201);
    }
    const slack = await ruleWith({ type: "slack", webhook_url: "{{SLACK_HOOK}}" });
    await sendTest(slack.id);
    expect(JSON.parse(decode(await arrivedAt(sink, "/from-secret"))).text).toContain("[test]");
    const tg = await ruleWith({ type: "telegram", bot_token: "{{TG_TOKEN}}", chat_id: "42" });
    await sendTest(tg.id);
    await arrivedAt(telegram, "/bot999:secret/sendMessage");
    const hook = await ruleWith({
      type: "webhook",
      url: `${sink.url}/keyed`,
      headers: { Authorization: "Bearer {{HOOK_KEY}}" },
    });
    await sendTest(hook.id);
    expect((await arrivedAt(sink, "/keyed")).headers.get("authorization")).toBe("Bearer s3cr3t");
    const read = await callAs(server, owner, "GET", `/api/v1/alert-rules/${hook.id}`);
    expect(read.body.data.channel.headers.Authorization).toBe("Bearer {{HOOK_KEY}}");
  });

  test("a missing secret fails the attempt as authentication_error / missing_secret, retried", async () => {
    const rule = await ruleWith({ type: "discord", webhook_url: "{{NOT_DEFINED}}" });
    const { alert_id } = await sendTest(rule.id);
    const alert = await pollUntil(
      async () => {
        const list = await callAs(server, owner, "GET", `/api/v1/alert-rules/${rule.id}/alerts`);
        const found = list.body.data.find((a: { id: string }) => a.id === alert_id);
        return found?.delivery?.attempts >= 2 ? found : undefined;
      },
      { what: "two attempts of the alert" },
    );
    expect(alert.delivery).toMatchObject({
      error_type: "authentication_error",
      error_code: "missing_secret",
      error_message: "secret NOT_DEFINED is not defined",
    });
    expect(alert.delivery.status).not.toBe("failed");
  });

  test("a channel answering 500 is retried and each attempt recorded; then it is delivered", async () => {
    let failures = 2;
    sink.answer((request) =>
      request.path === "/flaky" && failures-- > 0 ? { status: 500 } : { status: 200 },
    );
    const rule = await ruleWith({ type: "slack", webhook_url: `${sink.url}/flaky` });
    const { alert_id } = await sendTest(rule.id);
    const alert = await alertWhen(rule.id, alert_id, "delivered");
    expect(alert.delivery).toMatchObject({ attempts: 3, status_code: 200 });
    expect(sink.requests.filter((r) => r.path === "/flaky")).toHaveLength(3);
    sink.answer(() => ({ status: 200 }));
  });

  test("an alert whose rule was deleted ends failed (alert_rule_deleted) and is not sent again", async () => {
    const rule = await ruleWith({ type: "slack", webhook_url: `${sink.url}/deleted` });
    sink.answer((request) => (request.path === "/deleted" ? { status: 500 } : { status: 200 }));
    const { delivery_id } = await sendTest(rule.id);
    await arrivedAt(sink, "/deleted");
    const removed = await callAs(server, owner, "DELETE", `/api/v1/alert-rules/${rule.id}`);
    expect(removed.status).toBe(204);
    const row = async () =>
      (
        await serverRows<{ status: string; last_error_code: string }>(
          server,
          "SELECT status, last_error_code FROM deliveries WHERE id = $1",
          [delivery_id],
        )
      )[0];
    const ended = await pollUntil(
      async () => {
        const found = await row();
        return found?.status === "failed" ? found : undefined;
      },
      { what: "the orphaned alert failed" },
    );
    expect(ended.last_error_code).toBe("alert_rule_deleted");
    sink.answer(() => ({ status: 200 }));
  });
});

describe("text in an alert cannot ping, link or format", () => {
  test("slack escapes it; discord pings nobody", async () => {
    const name = "<!channel> <http://evil.test|click> @everyone & co";
    const create = (channel: Record<string, unknown>) =>
      callAs(server, owner, "POST", "/api/v1/alert-rules", {
        name,
        condition: { type: "issue_created" },
        channel,
      });
    const slack = (await create({ type: "slack", webhook_url: `${sink.url}/slack-inert` })).body
      .data;
    const discord = (await create({ type: "discord", webhook_url: `${sink.url}/discord-inert` }))
      .body.data;
    await sendTest(slack.id);
    await sendTest(discord.id);
    const slackPayload = JSON.parse(decode(await arrivedAt(sink, "/slack-inert")));
    expect(slackPayload.text).toContain(
      "&lt;!channel&gt; &lt;http://evil.test|click&gt; @everyone &amp; co",
    );
    expect(JSON.stringify(slackPayload)).not.toContain("<!channel>");
    const discordPayload = JSON.parse(decode(await arrivedAt(sink, "/discord-inert")));
    expect(discordPayload.allowed_mentions).toEqual({ parse: [] });
  });
});
