import { afterAll, afterEach, expect, test } from "bun:test";
import { SQL, type Subprocess } from "bun";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { startSmtpSink } from "../test-utils/smtp-sink.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

// On PostgreSQL, kill -9 while an incident update's mails are owed (the mail server refuses them
// for now): the mails, committed with the update, are all sent after the restart, none twice.
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-subscribers-crash-pg-");
const running: Subprocess[] = [];
const smtp = await startSmtpSink();
const READERS = ["a@example.com", "b@example.com", "c@example.com"];
const UPDATE_SUBJECT = "[Acme status] Identified: Slow checkout";

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});
afterAll(() => smtp.stop());

async function api(url: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data: { id: string } } };
}

const mailsTo = (email: string) => smtp.mails.filter((mail) => mail.to.includes(email));
const subjectsTo = (email: string) =>
  mailsTo(email).map((mail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]?.trim());

async function confirmedSubscriber(url: string, slug: string, email: string) {
  const page = await (await fetch(`${url}/status/${slug}`)).text();
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const posted = await fetch(`${url}/status/${slug}/subscribe`, {
    method: "POST",
    body: new URLSearchParams({ email, token }),
  });
  expect(posted.status).toBe(202);
  const mail = await pollUntil(() => mailsTo(email)[0], { what: `the confirmation to ${email}` });
  const body = mail.raw.replace(/=\r\n/g, "").replace(/=3D/g, "=");
  const link = /\/status\/[^\s]+\/confirm\?token=[A-Za-z0-9._-]+/.exec(body)?.[0] ?? "";
  expect((await fetch(`${url}${link}`)).status).toBe(200);
}

test("on PostgreSQL, kill -9 with an incident update's mails owed: after the restart each is sent, once", async () => {
  const db = await databases.create();
  const dataDir = tempDir();
  const env = {
    WEIR_DATABASE_URL: db.url,
    WEIR_SECRET_KEY: "cd".repeat(32),
    WEIR_SMTP_URL: smtp.url,
    WEIR_SMTP_FROM: "status@example.com",
    // Long enough that the refused mails are still waiting for their retry at the kill.
    WEIR_RETRY_BASE_MS: "1000",
    WEIR_RETRY_CAP_MS: "2000",
  };
  const first = await startWeirProcess(dataDir, env, running);
  const token = await registerOperator(first.url);
  const page = await api(first.url, token, "POST", "/api/v1/status-pages", {
    status_page: { name: "Acme status", slug: "acme", allow_subscribers: true },
  });
  expect(page.status).toBe(201);
  for (const email of READERS) await confirmedSubscriber(first.url, "acme", email);
  const incidents = `/api/v1/status-pages/${page.body.data.id}/incidents`;
  const opened = await api(first.url, token, "POST", incidents, {
    title: "Slow checkout",
    impact: "minor",
    status: "investigating",
    message: "Payments take longer than usual.",
  });
  expect(opened.status).toBe(201);
  for (const email of READERS) {
    await pollUntil(() => mailsTo(email)[1], { what: `the incident mail to ${email}` });
  }

  smtp.refuseNext(1_000);
  const update = await api(
    first.url,
    token,
    "POST",
    `${incidents}/${opened.body.data.id}/updates`,
    {
      status: "identified",
      message: "A slow payment provider.",
    },
  );
  expect(update.status).toBe(201);
  const sql = new SQL(db.url, { max: 1 });
  try {
    const updateMails = async () =>
      (await sql`
        SELECT d.status FROM deliveries d JOIN status_page_mails m ON m.id = d.subject_id
        WHERE d.kind = 'status_mail' AND m.kind = 'incident_update'`) as { status: string }[];
    await pollUntil(
      async () => {
        const rows = await updateMails();
        return rows.length === READERS.length && rows.every((r) => r.status === "retrying")
          ? true
          : undefined;
      },
      { what: "every update mail refused once and waiting for its retry" },
    );
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    for (const email of READERS) expect(subjectsTo(email)).not.toContain(UPDATE_SUBJECT);

    smtp.refuseNext(0);
    await startWeirProcess(dataDir, env, running);
    await pollUntil(
      async () => ((await updateMails()).every((r) => r.status === "delivered") ? true : undefined),
      { timeoutMs: 30_000, what: "the owed update mails delivered after the restart" },
    );
    for (const email of READERS) {
      expect(subjectsTo(email).filter((subject) => subject === UPDATE_SUBJECT)).toHaveLength(1);
    }
  } finally {
    await sql.close();
  }
});
