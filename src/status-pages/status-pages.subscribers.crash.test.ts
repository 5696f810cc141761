import { Database } from "bun:sqlite";
import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { pollUntil } from "../test-utils/poll.ts";
import { startSmtpSink } from "../test-utils/smtp-sink.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

// kill -9 while a subscriber's incident mail is owed (the mail server refuses it for now): the
// mail, committed with the incident, is sent after the restart, and only once.
const tempDir = useTempDirs("weir-subscribers-crash-");
const running: Subprocess[] = [];
const smtp = await startSmtpSink();
const EMAIL = "reader@example.com";

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});
afterAll(() => smtp.stop());

const startWeir = (dataDir: string) =>
  startWeirProcess(
    dataDir,
    {
      WEIR_SMTP_URL: smtp.url,
      WEIR_SMTP_FROM: "status@example.com",
      // Long enough that the refused mail is still waiting for its retry at the kill.
      WEIR_RETRY_BASE_MS: "1000",
      WEIR_RETRY_CAP_MS: "2000",
    },
    running,
  );

async function api(url: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data: { id: string } } };
}

const mailsTo = () => smtp.mails.filter((mail) => mail.to.includes(EMAIL));
const subjects = () => mailsTo().map((mail) => /^Subject: (.*)$/m.exec(mail.raw)?.[1]?.trim());

async function confirmedSubscriber(url: string, slug: string) {
  const page = await (await fetch(`${url}/status/${slug}`)).text();
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1] ?? "";
  const posted = await fetch(`${url}/status/${slug}/subscribe`, {
    method: "POST",
    body: new URLSearchParams({ email: EMAIL, token }),
  });
  expect(posted.status).toBe(202);
  const mail = await pollUntil(() => mailsTo()[0], { what: "the confirmation mail" });
  const body = mail.raw.replace(/=\r\n/g, "").replace(/=3D/g, "=");
  const link = /\/status\/[^\s]+\/confirm\?token=[A-Za-z0-9._-]+/.exec(body)?.[0] ?? "";
  expect((await fetch(`${url}${link}`)).status).toBe(200);
}

test("kill -9 with an incident mail owed: after the restart it is sent, once", async () => {
  const dataDir = tempDir();
  const first = await startWeir(dataDir);
  const token = await registerOperator(first.url);
  const page = await api(first.url, token, "POST", "/api/v1/status-pages", {
    status_page: { name: "Acme status", slug: "acme", allow_subscribers: true },
  });
  expect(page.status).toBe(201);
  await confirmedSubscriber(first.url, "acme");

  smtp.refuseNext(1_000);
  const incident = await api(
    first.url,
    token,
    "POST",
    `/api/v1/status-pages/${page.body.data.id}/incidents`,
    {
      title: "Slow checkout",
      impact: "minor",
      status: "investigating",
      message: "Payments take longer than usual.",
    },
  );
  expect(incident.status).toBe(201);
  const readDb = () => new Database(join(dataDir, "weir.db"), { readonly: true });
  const owed = () => {
    const db = readDb();
    try {
      return db
        .query<{ status: string; attempts: number }, []>(
          "SELECT status, attempts FROM deliveries WHERE kind = 'status_mail' ORDER BY created_at DESC LIMIT 1",
        )
        .get();
    } finally {
      db.close();
    }
  };
  await pollUntil(() => (owed()?.status === "retrying" ? true : undefined), {
    what: "the incident mail refused once and waiting for its retry",
  });
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  expect(subjects()).toEqual(["Confirm updates from Acme status"]);

  smtp.refuseNext(0);
  await startWeir(dataDir);
  await pollUntil(() => (owed()?.status === "delivered" ? true : undefined), {
    timeoutMs: 30_000,
    what: "the owed mail delivered after the restart",
  });
  expect(subjects()).toEqual([
    "Confirm updates from Acme status",
    "[Acme status] New incident: Slow checkout",
  ]);
});
