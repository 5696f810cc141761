import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { describeConfig, loadConfig } from "../shared/config.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { freePort } from "../test-utils/free-port.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { createMonitorAs, MONITORS_PATH } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { type SmtpSink, startSmtpSink } from "../test-utils/smtp-sink.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { MAIL_PER_HOUR } from "./alerts.send.ts";

// Email alerts (decisions.md §15) through a real local SMTP server: who receives them, what the
// subject and body say, retries after a refusal, and the SMTP password kept out of every answer.
let server: TestServer;
let owner: TestAccount;
let smtp: SmtpSink;
const target = startHttpSink();
const PASSWORD = "mail-secret-pw";

beforeAll(async () => {
  smtp = await startSmtpSink("weir", PASSWORD);
  server = await startTestServer({
    config: {
      smtp_url: smtp.url,
      smtp_from: "Weir <weir@example.com>",
      retry_base_ms: 50,
      retry_cap_ms: 100,
    },
  });
  owner = await signUp(server, { plan: "team" });
});
afterAll(async () => {
  await server.stop();
  await smtp.stop();
  await target.stop();
});

async function emailRule(to: unknown, condition: Record<string, unknown>) {
  return callAs(server, owner, "POST", "/api/v1/alert-rules", {
    name: `mail on ${condition.type}`,
    condition,
    channel: { type: "email", to },
  });
}

const mailTo = (address: string) =>
  pollUntil(() => smtp.mails.find((mail) => mail.to.includes(address)), {
    what: `a mail to ${address}`,
  });

const headerOf = (raw: string, name: string) =>
  raw.match(new RegExp(`^${name}: (.*(?:\\r\\n[ \\t].*)*)`, "mi"))?.[1]?.replace(/\r\n[ \t]/g, " ");

/** The text after the headers, quoted-printable undone and lines joined with \n. */
const bodyOf = (raw: string) =>
  raw
    .slice(raw.indexOf("\r\n\r\n") + 4)
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\r\n/g, "\n");

describe("email alert channel", () => {
  test("a monitor going down mails every recipient: '[Weir] <name> is DOWN', the reason and the link", async () => {
    const created = await emailRule(["oncall@example.com", "ops@example.org"], {
      type: "monitor_down",
    });
    expect(created.status).toBe(201);
    expect(created.body.data.channel).toEqual({
      type: "email",
      to: ["oncall@example.com", "ops@example.org"],
    });
    target.answer(() => ({ status: 503 }));
    const monitor = await createMonitorAs(server, owner, {
      name: "api.example.com",
      type: "http",
      url: `${target.url}/health`,
      paused: true,
    });
    await callAs(server, owner, "POST", `${MONITORS_PATH}/${monitor.id}/check`);

    const mail = await mailTo("oncall@example.com");
    expect(mail.to).toEqual(["oncall@example.com", "ops@example.org"]);
    expect(mail.from).toBe("weir@example.com");
    expect(mail.user).toBe("weir");
    expect(headerOf(mail.raw, "Subject")).toBe("[Weir] api.example.com is DOWN");
    expect(mail.raw).toMatch(/^Content-Type: text\/plain/im);
    const body = bodyOf(mail.raw);
    expect(body).toContain("went from pending to down");
    expect(body).toContain("503");
    expect(body).toContain(`/api/v1/uptime-monitors/${monitor.id}`);
  });

  test("an issue alert is mailed too, with its headline as the subject", async () => {
    const rule = await emailRule(["issues@example.com"], { type: "issue_created" });
    expect(rule.status).toBe(201);
    const sent = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/alert-rules/${rule.body.data.id}/test`,
    );
    expect(sent.status).toBe(202);
    const mail = await mailTo("issues@example.com");
    expect(headerOf(mail.raw, "Subject")).toStartWith(
      "[Weir] [test] New issue: Sample destination",
    );
  });

  test("a refused mail is retried like any channel's alert, then delivered once", async () => {
    const rule = await emailRule(["retry@example.com"], { type: "monitor_down" });
    smtp.refuseNext(1);
    const sent = await callAs(
      server,
      owner,
      "POST",
      `/api/v1/alert-rules/${rule.body.data.id}/test`,
    );
    const alertId = sent.body.data.alert_id as string;
    const alert = await pollUntil(
      async () => {
        const list = await callAs(
          server,
          owner,
          "GET",
          `/api/v1/alert-rules/${rule.body.data.id}/alerts`,
        );
        const found = list.body.data.find((a: { id: string }) => a.id === alertId);
        return found?.delivery?.status === "delivered" ? found : undefined;
      },
      { what: "the alert delivered" },
    );
    expect(alert.delivery.attempts).toBe(2);
    const mails = smtp.mails.filter((mail) => mail.to.includes("retry@example.com"));
    expect(mails).toHaveLength(1);
    expect(headerOf(mails[0]?.raw ?? "", "Subject")).toBe("[Weir] [test] Sample monitor is DOWN");
  });

  test("an organization sends at most MAIL_PER_HOUR mails an hour through the server's mail server", async () => {
    // The mail server is the operator's and exempt from the address policy: without a budget any
    // organization could mail any address from it, as fast as it can press "test".
    const sender = await signUp(server, { plan: "team" });
    const rule = await callAs(server, sender, "POST", "/api/v1/alert-rules", {
      name: "budget",
      condition: { type: "monitor_down" },
      channel: { type: "email", to: ["budget@example.com"] },
    });
    const test = () =>
      callAs(server, sender, "POST", `/api/v1/alert-rules/${rule.body.data.id}/test`);
    for (let i = 0; i < MAIL_PER_HOUR; i++) expect((await test()).status).toBe(202);
    const toBudget = () => smtp.mails.filter((mail) => mail.to.includes("budget@example.com"));
    await pollUntil(() => toBudget().length === MAIL_PER_HOUR || undefined, {
      what: `${MAIL_PER_HOUR} mails sent`,
    });
    const over = await test();
    const alertId = over.body.data.alert_id as string;
    const alert = await pollUntil(
      async () => {
        const list = await callAs(
          server,
          sender,
          "GET",
          `/api/v1/alert-rules/${rule.body.data.id}/alerts`,
        );
        const found = list.body.data.find((a: { id: string }) => a.id === alertId);
        return found?.delivery?.attempts >= 1 ? found : undefined;
      },
      { what: "the over-budget alert attempted" },
    );
    expect(alert.delivery).toMatchObject({ error_code: "mail_limit_reached" });
    expect(toBudget()).toHaveLength(MAIL_PER_HOUR);
    // Another organization's mail still goes out.
    const other = await emailRule(["unaffected@example.com"], { type: "monitor_down" });
    await callAs(server, owner, "POST", `/api/v1/alert-rules/${other.body.data.id}/test`);
    await mailTo("unaffected@example.com");
  });

  test("addresses are checked: 422 naming channel.to, at most 10 recipients", async () => {
    const bad = await emailRule(["oncall@example.com", "not an address"], { type: "monitor_down" });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toBe("validation_failed");
    expect(bad.body.errors["channel.to"][0]).toContain('"not an address"');
    const none = await emailRule([], { type: "monitor_down" });
    expect(none.status).toBe(422);
    expect(none.body.errors["channel.to"]).toBeDefined();
    const eleven = Array.from({ length: 11 }, (_, i) => `user${i}@example.com`);
    const many = await emailRule(eleven, { type: "monitor_down" });
    expect(many.status).toBe(422);
    expect(many.body.errors["channel.to"][0]).toContain("1 to 10");
    const injected = await emailRule(["a@example.com\r\nBcc: x@evil.test"], {
      type: "monitor_down",
    });
    expect(injected.status).toBe(422);
  });

  test("the SMTP password is never shown: not in logs, alert answers or the effective config", async () => {
    await pollUntil(() => smtp.mails.length >= 3, { what: "the earlier mails" });
    const rules = await callAs(server, owner, "GET", "/api/v1/alert-rules");
    const everything = JSON.stringify(rules.body) + server.logs.join("\n");
    expect(everything).not.toContain(PASSWORD);
    const loaded = loadConfig({
      env: { WEIR_SMTP_URL: smtp.url, WEIR_SMTP_FROM: "weir@example.com" },
      flags: { data_dir: server.dataDir },
    });
    expect(loaded.config.smtp_url).toBe(smtp.url);
    const shown = JSON.stringify(describeConfig(loaded));
    expect(shown).toContain("(redacted)");
    expect(shown).not.toContain(PASSWORD);
  });
});

describe("a mail server that is down", () => {
  test("the attempt says connection_refused at smtp://host:port (no password) and the alert keeps retrying", async () => {
    const closedPort = freePort();
    const down = await startTestServer({
      config: {
        smtp_url: `smtp://weir:${PASSWORD}@127.0.0.1:${closedPort}`,
        smtp_from: "weir@example.com",
        retry_base_ms: 50,
        retry_cap_ms: 100,
      },
    });
    try {
      const admin = await signUp(down);
      const rule = await callAs(down, admin, "POST", "/api/v1/alert-rules", {
        name: "mail",
        condition: { type: "monitor_down" },
        channel: { type: "email", to: ["oncall@example.com"] },
      });
      const sent = await callAs(
        down,
        admin,
        "POST",
        `/api/v1/alert-rules/${rule.body.data.id}/test`,
      );
      const deliveryId = sent.body.data.delivery_id as string;
      const alert = await pollUntil(
        async () => {
          const list = await callAs(
            down,
            admin,
            "GET",
            `/api/v1/alert-rules/${rule.body.data.id}/alerts`,
          );
          const found = list.body.data[0];
          return found?.delivery?.attempts >= 2 ? found : undefined;
        },
        { what: "two failed attempts" },
      );
      // Between attempts it waits ("retrying"), or the next one is already out.
      expect(["retrying", "delivering"]).toContain(alert.delivery.status);
      expect(alert.delivery).toMatchObject({
        id: deliveryId,
        error_type: "network_error",
        error_code: "connection_refused",
      });
      const attempts = await serverRows<{ url: string; error_message: string }>(
        down,
        "SELECT url, error_message FROM delivery_attempts WHERE delivery_id = $1",
        [deliveryId],
      );
      expect(attempts[0]?.url).toBe(`smtp://127.0.0.1:${closedPort}`);
      expect(JSON.stringify(attempts)).not.toContain(PASSWORD);
    } finally {
      await down.stop();
    }
  });
});

describe("email without the server's mail settings", () => {
  test("creating an email channel is a 422 that says the server needs WEIR_SMTP_URL", async () => {
    const bare = await startTestServer();
    try {
      const admin = await signUp(bare);
      const answer = await callAs(bare, admin, "POST", "/api/v1/alert-rules", {
        name: "mail",
        condition: { type: "monitor_down" },
        channel: { type: "email", to: ["oncall@example.com"] },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.errors["channel.type"][0]).toContain("WEIR_SMTP_URL");
    } finally {
      await bare.stop();
    }
  });
});
