import { Database } from "bun:sqlite";
import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

// kill -9 while failures keep opening issues: every issue that survives has its one alert (a
// firing and its delivery row, committed with the failure), and after the restart each alert
// reaches its channel; no alert exists for an issue that does not.
const ROUTES = 40;
const SENDERS = 8;
/** Acknowledged ingests before the kill: about half the routes have their issue by then. */
const BEFORE_KILL = 20;
const tempDir = useTempDirs("weir-alerts-crash-");
const running: Subprocess[] = [];
const sink = startHttpSink();

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});
afterAll(() => sink.stop());

// Short timeouts keep the delivery lease at its 5 s floor: an alert claimed by the killed
// process is claimed again once its lease ends.
const TIMEOUT_MS = "2000";
const startWeir = (dataDir: string) =>
  startWeirProcess(
    dataDir,
    { WEIR_FORWARD_TIMEOUT_MS: TIMEOUT_MS, WEIR_DESTINATION_TIMEOUT_MS: TIMEOUT_MS },
    running,
  );

async function api(url: string, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data: { source_id: string; slug: string } },
  };
}

/** An alert rule and ROUTES bridges whose destinations fail at once (a missing secret). */
async function setUp(url: string): Promise<{ slugs: string[]; token: string }> {
  const token = await registerOperator(url);
  const rule = await api(url, token, "POST", "/api/v1/alert-rules", {
    name: "Every new issue",
    condition: { type: "issue_created" },
    channel: { type: "webhook", url: `${sink.url}/alerts` },
  });
  expect(rule.status).toBe(201);
  const slugs: string[] = [];
  for (let i = 0; i < ROUTES; i++) {
    const bridge = await api(url, token, "POST", "/api/v1/bridges", {
      name: `route ${i}`,
      source: { name: `source ${i}`, type: "webhook" },
      destinations: [{ name: `down ${i}`, url: `{{NOT_SET_${i}}}`, max_retries: 0 }],
    });
    expect(bridge.status).toBe(201);
    const source = await api(url, token, "GET", `/api/v1/sources/${bridge.body.data.source_id}`);
    slugs.push(source.body.data.slug);
  }
  return { slugs, token };
}

test("kill -9 while failures open issues: each surviving issue keeps its one alert, sent after the restart", async () => {
  const dataDir = tempDir();
  const first = await startWeir(dataDir);
  const { slugs } = await setUp(first.url);
  let acknowledged = 0;
  let next = 0;
  await killMidStream({
    proc: first.proc,
    senders: SENDERS,
    async send() {
      // Route after route: new issues keep opening until the kill.
      const slug = slugs[next++ % slugs.length];
      const response = await fetch(`${first.url}/in/${slug}`, { method: "POST", body: "{}" });
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      acknowledged += 1;
    },
    ready: () => acknowledged >= BEFORE_KILL,
    timeoutMs: 20_000,
    what: `${BEFORE_KILL} ingests`,
  });
  expect(first.proc.signalCode).toBe("SIGKILL");

  await startWeir(dataDir);
  const db = new Database(join(dataDir, "weir.db"), { readonly: true });
  try {
    const issues = db.query<{ id: string }, []>("SELECT id FROM issues").all();
    const firings = db
      .query<{ id: string; issue_id: string; deliveries: number }, []>(
        `SELECT f.id, f.issue_id,
           (SELECT count(*) FROM deliveries d WHERE d.kind = 'alert' AND d.subject_id = f.id) AS deliveries
         FROM alert_firings f`,
      )
      .all();
    expect(issues.length).toBeGreaterThan(0);
    expect(firings.map((f) => f.issue_id).sort()).toEqual(issues.map((i) => i.id).sort());
    expect(firings.filter((f) => f.deliveries !== 1)).toEqual([]);
    // Every alert reaches the channel (at least once: one sent just before the kill may repeat;
    // one claimed by the killed process waits for its lease to end).
    const wanted = new Set(firings.map((f) => f.id));
    await pollUntil(
      () => {
        const sent = new Set(
          sink.requests.map((r) => JSON.parse(new TextDecoder().decode(r.body)).data.alert_id),
        );
        return [...wanted].every((id) => sent.has(id));
      },
      { timeoutMs: 30_000, what: "every alert at the channel" },
    );
  } finally {
    db.close();
  }
}, 120_000);
