import { afterAll, beforeAll, expect, test } from "bun:test";
import { parsePlanTable } from "../shared/plans.ts";
import { signUp } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { type SmtpSink, startSmtpSink } from "../test-utils/smtp-sink.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";

// Subscriptions that arrive together: a page's quota holds however they interleave (on
// PostgreSQL each request's count and insert run while others wait on their database turns).
const PATH = "/api/v1/status-pages";
const QUOTA = 2;
const ADDRESSES = Array.from({ length: 8 }, (_, i) => `race${i}@example.com`);
let smtp: SmtpSink;
let server: TestServer;

beforeAll(async () => {
  smtp = await startSmtpSink();
  server = await startTestServer({
    config: {
      smtp_url: smtp.url,
      smtp_from: "Weir <status@example.com>",
      plans: parsePlanTable({ team: { status_page_subscribers: QUOTA } }),
    },
  });
});
afterAll(async () => {
  await server.stop();
  await smtp.stop();
});

test("subscribe requests sent at once never take a page past its plan's quota", async () => {
  const admin = await signUp(server, { plan: "team" });
  const created = await callAs(server, admin, "POST", PATH, {
    status_page: { name: "Race", slug: "race", allow_subscribers: true },
  });
  expect(created.status).toBe(201);
  const html = await (await server.request("/status/race")).text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const answers = await Promise.all(
    ADDRESSES.map((email) =>
      server.request("/status/race/subscribe", {
        method: "POST",
        body: new URLSearchParams({ email, token }),
      }),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(ADDRESSES.map(() => 202));
  const list = await callAs(server, admin, "GET", `${PATH}/${created.body.data.id}/subscribers`);
  expect(list.body.total).toBe(QUOTA);
  // Exactly the stored addresses were mailed their confirmation, and no one else.
  const stored = (list.body.data as { email: string }[]).map((s) => s.email).sort();
  await pollUntil(() => (smtp.mails.length >= QUOTA ? true : undefined), {
    what: "the stored addresses' confirmation mails",
  });
  // The barrier: one more mail to an address of another page, sent after the others.
  const other = await callAs(server, admin, "POST", PATH, {
    status_page: { name: "Other", slug: "race-other", allow_subscribers: true },
  });
  expect(other.status).toBe(201);
  const otherHtml = await (await server.request("/status/race-other")).text();
  const otherToken = /name="token" value="([^"]+)"/.exec(otherHtml)?.[1] ?? "";
  await server.request("/status/race-other/subscribe", {
    method: "POST",
    body: new URLSearchParams({ email: "barrier@example.com", token: otherToken }),
  });
  await pollUntil(() => smtp.mails.find((mail) => mail.to.includes("barrier@example.com")), {
    what: "the barrier mail",
  });
  const mailed = smtp.mails
    .flatMap((mail) => mail.to)
    .filter((to) => to.startsWith("race"))
    .sort();
  expect(mailed).toEqual(stored);
});
