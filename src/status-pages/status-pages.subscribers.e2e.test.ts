import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parsePlanTable } from "../shared/plans.ts";
import { signUp, type TestAccount } from "../test-utils/accounts.ts";
import { callAs } from "../test-utils/endpoints.ts";
import { createFakeClock } from "../test-utils/fake-clock.ts";
import { createManualScheduler } from "../test-utils/manual-scheduler.ts";
import { createMonitorAs } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { serverRows } from "../test-utils/server-rows.ts";
import { type SmtpSink, startSmtpSink } from "../test-utils/smtp-sink.ts";
import { everyStoredRow, storedRows } from "../test-utils/stored-rows.ts";
import { startTestServer, type TestServer } from "../test-utils/test-server.ts";
import { MAINTENANCE_STARTS_JOB, STATUS_MAILS_RETENTION_JOB } from "./status-pages.room.ts";

// Email subscribers of a status page, end to end through a local SMTP server: double opt-in,
// incident mails, one-click unsubscribe, signed links, rate limits and who may read addresses.
const clock = createFakeClock(Date.UTC(2026, 5, 1, 12));
const HOUR_MS = 3_600_000;
const scheduler = createManualScheduler();
const PATH = "/api/v1/status-pages";
let server: TestServer;
let smtp: SmtpSink;
let owner: { headers: Record<string, string> };
let account: TestAccount;

beforeAll(async () => {
  smtp = await startSmtpSink();
  server = await startTestServer({
    clock,
    scheduler,
    config: { smtp_url: smtp.url, smtp_from: "Weir <status@example.com>" },
  });
  account = await signUp(server, { plan: "team" });
  // A key, not a login token: the clock moves by days here and keys do not expire.
  owner = { headers: { "x-api-key": await account.createApiKey() } };
});
afterAll(async () => {
  await server.stop();
  await smtp.stop();
});

let counter = 0;
async function newPage(extra: Record<string, unknown> = { allow_subscribers: true }) {
  const slug = `subs-${++counter}`;
  const answer = await callAs(server, owner, "POST", PATH, {
    status_page: { name: "Acme status", slug, ...extra },
  });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: string; slug: string; allow_subscribers: boolean };
}

/** The form token the public page carries in its hidden field. */
async function formToken(slug: string): Promise<string> {
  const html = await (await server.request(`/status/${slug}`)).text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error("the page has no subscribe form");
  return token;
}

/** Posts the page's form as a browser does (urlencoded). */
async function subscribeForm(slug: string, email: string, token?: string) {
  const body = new URLSearchParams({ email, token: token ?? (await formToken(slug)) });
  return server.request(`/status/${slug}/subscribe`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
}

const mailsTo = (address: string) => smtp.mails.filter((mail) => mail.to.includes(address));
const mailTo = (address: string, count = 1) =>
  pollUntil(() => (mailsTo(address).length >= count ? mailsTo(address)[count - 1] : undefined), {
    what: `mail ${count} to ${address}`,
  });

/** The text after the headers, quoted-printable undone and lines joined with \n. */
const bodyOf = (raw: string) =>
  raw
    .slice(raw.indexOf("\r\n\r\n") + 4)
    .replace(/=\r\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\r\n/g, "\n");
const headerOf = (raw: string, name: string) =>
  raw
    .match(new RegExp(`^${name}: ?(.*(?:\\r\\n[ \\t].*)*)`, "mi"))?.[1]
    ?.replace(/\r\n[ \t]/g, "")
    .trim();
const linkIn = (raw: string, path: string) => {
  const match = new RegExp(`https?://[^\\s]+/${path}\\?token=[A-Za-z0-9._-]+`).exec(bodyOf(raw));
  if (!match) throw new Error(`no ${path} link in the mail`);
  return new URL(match[0]);
};
const local = (url: URL) => `${url.pathname}${url.search}`;

/**
 * Waits until every mail sent so far has its outcome recorded. The sink holds a mail before the
 * sender has recorded it; a clock leap past the lease in between would hand the row out again.
 */
const mailsRecorded = () =>
  pollUntil(
    async () => {
      const [row] = await serverRows<{ n: number | string }>(
        server,
        "SELECT count(*) AS n FROM deliveries WHERE locked_until IS NOT NULL",
      );
      return Number(row?.n) === 0 ? true : undefined;
    },
    { what: "every mail's outcome recorded" },
  );

async function confirmedSubscriber(slug: string, email: string) {
  expect((await subscribeForm(slug, email)).status).toBe(202);
  const confirmation = await mailTo(email);
  const answer = await server.request(local(linkIn(confirmation.raw, "confirm")));
  expect(answer.status).toBe(200);
}

const openIncident = (pageId: string, title: string) =>
  callAs(server, owner, "POST", `${PATH}/${pageId}/incidents`, {
    title,
    impact: "minor",
    status: "investigating",
    message: "Payments take longer than usual.",
  });

describe("status page email subscribers", () => {
  test("subscribe → confirm → incident mail → update mail → unsubscribe → no more mail", async () => {
    const page = await newPage();
    expect(page.allow_subscribers).toBe(true);
    const email = "reader@example.com";
    const posted = await subscribeForm(page.slug, email);
    expect(posted.status).toBe(202);
    expect(await posted.text()).toContain("Check your inbox");
    const confirmation = await mailTo(email);
    expect(headerOf(confirmation.raw, "Subject")).toBe("Confirm updates from Acme status");
    // Not confirmed yet: an incident mails nobody.
    const early = await openIncident(page.id, "Before confirming");
    expect(early.status).toBe(201);

    const confirmed = await server.request(local(linkIn(confirmation.raw, "confirm")));
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain("Subscribed");

    const opened = await openIncident(page.id, "Slow checkout");
    const first = await mailTo(email, 2);
    expect(headerOf(first.raw, "Subject")).toBe("[Acme status] New incident: Slow checkout");
    expect(bodyOf(first.raw)).toContain("Payments take longer than usual.");
    const unsubscribeHeader = headerOf(first.raw, "List-Unsubscribe") ?? "";
    expect(unsubscribeHeader).toMatch(/^<https?:\/\/.+\/unsubscribe\?token=.+>$/);
    expect(headerOf(first.raw, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");

    await callAs(
      server,
      owner,
      "POST",
      `${PATH}/${page.id}/incidents/${opened.body.data.id}/updates`,
      {
        status: "resolved",
        message: "Back to normal.",
      },
    );
    const second = await mailTo(email, 3);
    expect(headerOf(second.raw, "Subject")).toBe("[Acme status] Resolved: Slow checkout");
    expect(
      mailsTo(email)
        .map((m) => bodyOf(m.raw))
        .join(),
    ).not.toContain("Before confirming");

    // The link opens a button (a scanner following links changes nothing); the POST unsubscribes.
    const link = linkIn(second.raw, "unsubscribe");
    const shown = await server.request(local(link));
    expect(await shown.text()).toContain("<button");
    // RFC 8058: the mail client posts `List-Unsubscribe=One-Click` to the header's URL.
    const oneClick = new URL(unsubscribeHeader.slice(1, -1));
    const done = await server.request(local(oneClick), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("Unsubscribed");

    const beforeLast = smtp.mails.length;
    await openIncident(page.id, "After leaving");
    const watcher = "watcher@example.com";
    await confirmedSubscriber(page.slug, watcher);
    await openIncident(page.id, "Seen by the watcher");
    await mailTo(watcher, 2);
    expect(mailsTo(email)).toHaveLength(3);
    expect(smtp.mails.length).toBeGreaterThan(beforeLast);
  });

  test("a new maintenance window touching the page's monitors is mailed; one elsewhere is not", async () => {
    const page = await newPage();
    const monitor = (name: string) =>
      createMonitorAs(server, owner as TestAccount, { name, type: "push", interval_seconds: 60 });
    const shown = await monitor("Checkout");
    const elsewhere = await monitor("Internal");
    await callAs(server, owner, "POST", `${PATH}/${page.id}/monitors/${shown.id}`, {});
    const email = "maint@example.com";
    await confirmedSubscriber(page.slug, email);
    const window = (title: string, monitorId: string) =>
      callAs(server, owner, "POST", "/api/v1/maintenance-windows", {
        title,
        description: "The database moves.",
        monitor_ids: [monitorId],
        starts_at: "2026-06-10T01:00:00Z",
        ends_at: "2026-06-10T03:00:00Z",
      });
    expect((await window("Not on this page", elsewhere.id)).status).toBe(201);
    expect((await window("Migration", shown.id)).status).toBe(201);
    const mail = await mailTo(email, 2);
    expect(headerOf(mail.raw, "Subject")).toBe("[Acme status] Scheduled maintenance: Migration");
    expect(bodyOf(mail.raw)).toContain("From 2026-06-10 01:00 UTC to 2026-06-10 03:00 UTC");
    expect(bodyOf(mail.raw)).toContain("The database moves.");
    expect(mailsTo(email)).toHaveLength(2);
  });

  test("a maintenance occurrence that starts on the page's monitors is announced once", async () => {
    const page = await newPage();
    const shown = await createMonitorAs(server, owner as TestAccount, {
      name: "Search",
      type: "push",
      interval_seconds: 60,
    });
    await callAs(server, owner, "POST", `${PATH}/${page.id}/monitors/${shown.id}`, {});
    const email = "starts@example.com";
    await confirmedSubscriber(page.slug, email);
    const start = clock.now() + HOUR_MS;
    const created = await callAs(server, owner, "POST", "/api/v1/maintenance-windows", {
      title: "Reindex",
      monitor_ids: [shown.id],
      starts_at: new Date(start).toISOString(),
      ends_at: new Date(start + 2 * HOUR_MS).toISOString(),
    });
    expect(created.status).toBe(201);
    await mailTo(email, 2);
    // Not started yet: nothing to announce.
    await scheduler.run(MAINTENANCE_STARTS_JOB);
    await mailsRecorded();
    clock.advance(HOUR_MS + 60_000);
    await scheduler.run(MAINTENANCE_STARTS_JOB);
    const started = await mailTo(email, 3);
    expect(headerOf(started.raw, "Subject")).toBe("[Acme status] Maintenance started: Reindex");
    await scheduler.run(MAINTENANCE_STARTS_JOB);
    await confirmedSubscriber(page.slug, "barrier@example.com");
    expect(mailsTo(email)).toHaveLength(3);
  });

  test("the same answer whether or not the address is subscribed; one confirmation per hour", async () => {
    const page = await newPage();
    const email = "twice@example.com";
    await confirmedSubscriber(page.slug, email);
    const again = await subscribeForm(page.slug, email);
    const fresh = await subscribeForm(page.slug, "new@example.com");
    expect(again.status).toBe(fresh.status);
    expect(await again.text()).toBe(await fresh.text());
    await mailTo("new@example.com");
    // A pending address asking again within the hour gets no second mail; after it, one more.
    await subscribeForm(page.slug, "new@example.com");
    await mailsRecorded();
    clock.advance(HOUR_MS + 1000);
    await subscribeForm(page.slug, "new@example.com");
    await mailTo("new@example.com", 2);
    // The confirmed address got its confirmation only.
    expect(mailsTo(email)).toHaveLength(1);
    expect(mailsTo("new@example.com")).toHaveLength(2);
    // The hour holds per address across pages: another page sends nothing within it.
    const other = await newPage();
    expect((await subscribeForm(other.slug, "new@example.com")).status).toBe(202);
    await confirmedSubscriber(other.slug, "third@example.com");
    expect(mailsTo("new@example.com")).toHaveLength(2);
  });

  test("bad, forged, expired and wrong-purpose tokens are refused", async () => {
    const page = await newPage();
    const email = "late@example.com";
    await subscribeForm(page.slug, email);
    const link = linkIn((await mailTo(email)).raw, "confirm");
    const token = link.searchParams.get("token") ?? "";
    const [body] = token.split(".");
    const forged = `${body}.${"A".repeat(43)}`;
    for (const bad of ["", "nonsense", forged]) {
      const answer = await server.request(`/status/${page.slug}/confirm?token=${bad}`);
      expect(answer.status).toBe(400);
    }
    // A confirmation token does not unsubscribe anyone.
    const wrong = await server.request(`/status/${page.slug}/unsubscribe?token=${token}`, {
      method: "POST",
    });
    expect(wrong.status).toBe(400);
    // A form token of another page, or none, is refused with the field named.
    const other = await newPage();
    const stray = await subscribeForm(page.slug, "x@example.com", await formToken(other.slug));
    expect(stray.status).toBe(422);
    const json = await server.request(`/status/${page.slug}/subscribe`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "not-an-address" }),
    });
    expect(json.status).toBe(422);
    const problems = (await json.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(problems.errors).sort()).toEqual(["email", "token"]);
    // 48 hours later the confirmation link has expired.
    clock.advance(49 * HOUR_MS);
    expect((await server.request(local(link))).status).toBe(400);
  });

  test("at most 20 subscribe requests per page per minute", async () => {
    const page = await newPage();
    const token = await formToken(page.slug);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      statuses.push((await subscribeForm(page.slug, `burst${i}@example.com`, token)).status);
    }
    expect(statuses.filter((s) => s === 202)).toHaveLength(20);
    expect(statuses[20]).toBe(429);
  });

  test("a page without subscribers has no form and refuses posts; allow_subscribers needs SMTP", async () => {
    const page = await newPage({});
    expect(page.allow_subscribers).toBe(false);
    expect(await (await server.request(`/status/${page.slug}`)).text()).not.toContain("subscribe");
    const answer = await server.request(`/status/${page.slug}/subscribe`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a@example.com", token: "x" }),
    });
    expect(answer.status).toBe(404);

    const bare = await startTestServer();
    try {
      const account = await signUp(bare, { plan: "team" });
      const refused = await callAs(bare, account, "POST", PATH, {
        status_page: { name: "No mail", slug: "no-mail", allow_subscribers: true },
      });
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(["allow_subscribers"]);
    } finally {
      await bare.stop();
    }
  });

  test("a page takes at most its plan's status_page_subscribers; past it nothing is stored or sent", async () => {
    const small = await startTestServer({
      clock,
      config: {
        smtp_url: smtp.url,
        smtp_from: "Weir <status@example.com>",
        plans: parsePlanTable({ team: { status_page_subscribers: 2 } }),
      },
    });
    try {
      const admin = await signUp(small, { plan: "team" });
      const created = await callAs(small, admin, "POST", PATH, {
        status_page: { name: "Small", slug: "small", allow_subscribers: true },
      });
      const html = await (await small.request("/status/small")).text();
      const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? "";
      const post = (email: string) =>
        small.request("/status/small/subscribe", {
          method: "POST",
          body: new URLSearchParams({ email, token }),
        });
      for (const email of ["cap1@example.com", "cap2@example.com", "cap3@example.com"]) {
        expect((await post(email)).status).toBe(202);
      }
      await mailTo("cap2@example.com");
      const list = await callAs(small, admin, "GET", `${PATH}/${created.body.data.id}/subscribers`);
      expect(list.body.total).toBe(2);
      expect(mailsTo("cap3@example.com")).toHaveLength(0);
    } finally {
      await small.stop();
    }
  });

  test("admins list, export and delete subscribers; members may not; another org gets 404", async () => {
    // Logged in now: earlier tests moved the clock past older login tokens' expiry.
    const member = await account.addMember("member");
    const stranger = await signUp(server, { plan: "team" });
    const page = await newPage();
    await confirmedSubscriber(page.slug, "listed@example.com");
    await subscribeForm(page.slug, "=cmd@example.com");
    const list = await callAs(server, owner, "GET", `${PATH}/${page.id}/subscribers`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    const byEmail = Object.fromEntries(
      (list.body.data as { email: string; status: string; id: string }[]).map((s) => [s.email, s]),
    );
    expect(byEmail["listed@example.com"]?.status).toBe("confirmed");
    expect(byEmail["=cmd@example.com"]?.status).toBe("pending");

    const csv = await server.request(`${PATH}/${page.id}/subscribers?format=csv`, owner);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    const text = await csv.text();
    expect(text).toContain("'=cmd@example.com");
    expect(text.split("\r\n")[0]).toBe("id,email,status,subscribed_at,confirmed_at");

    expect((await callAs(server, member, "GET", `${PATH}/${page.id}/subscribers`)).status).toBe(
      403,
    );
    expect((await callAs(server, stranger, "GET", `${PATH}/${page.id}/subscribers`)).status).toBe(
      404,
    );
    const id = byEmail["listed@example.com"]?.id;
    const foreign = await callAs(
      server,
      stranger,
      "DELETE",
      `${PATH}/${page.id}/subscribers/${id}`,
    );
    expect(foreign.status).toBe(404);
    const other = await newPage();
    const wrongPage = await callAs(
      server,
      owner,
      "DELETE",
      `${PATH}/${other.id}/subscribers/${id}`,
    );
    expect(wrongPage.status).toBe(404);
    const removed = await callAs(server, owner, "DELETE", `${PATH}/${page.id}/subscribers/${id}`);
    expect(removed.status).toBe(204);
    const after = await callAs(server, owner, "GET", `${PATH}/${page.id}/subscribers`);
    expect(after.body.total).toBe(1);

    // Deleted with the page.
    await callAs(server, owner, "DELETE", `${PATH}/${page.id}`);
    const gone = await callAs(server, owner, "GET", `${PATH}/${page.id}/subscribers`);
    expect(gone.status).toBe(404);
  });

  test("mails and their deliveries go after the plan's retention (team: 30 days)", async () => {
    const page = await newPage();
    await confirmedSubscriber(page.slug, "kept@example.com");
    const mails = async () => (await everyStoredRow(server, "status_page_mails")).length;
    const deliveries = async () =>
      (await storedRows(server, "deliveries", "kind", "status_mail")).length;
    expect(await mails()).toBeGreaterThan(0);
    expect(await deliveries()).toBe(await mails());
    await scheduler.run(STATUS_MAILS_RETENTION_JOB);
    expect(await mails()).toBeGreaterThan(0);
    clock.advance(31 * 24 * HOUR_MS);
    await scheduler.run(STATUS_MAILS_RETENTION_JOB);
    expect(await mails()).toBe(0);
    expect(await deliveries()).toBe(0);
  });
});
