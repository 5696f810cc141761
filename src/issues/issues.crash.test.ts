import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 8;
/** Failed attempts the destination saw before the kill. */
const FAILURES_BEFORE_KILL = 150;
const tempDir = useTempDirs("weir-issues-crash-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

// A short breaker keeps failures (and half-open probes) flowing rather than waiting 30 s.
const startWeir = (dataDir: string) =>
  startWeirProcess(dataDir, { WEIR_BREAKER_OPEN_MS: "50", WEIR_RETRY_BASE_MS: "50" }, running);

/** A bridge whose one destination is `url`, made through the API; returns the ingest URL. */
async function createRoute(baseUrl: string, url: string): Promise<string> {
  const token = await registerOperator(baseUrl);
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const bridge = await fetch(`${baseUrl}/api/v1/bridges`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "crash",
      source: { name: "crash source", type: "webhook" },
      destinations: [{ name: "down", type: "http", url, max_retries: 1 }],
    }),
  });
  expect(bridge.status).toBe(201);
  const sources = await fetch(`${baseUrl}/api/v1/sources`, { headers });
  const [source] = ((await sources.json()) as { data: { ingest_url: string }[] }).data;
  if (!source) throw new Error("no source");
  return source.ingest_url;
}

/** Failed event attempts recorded, and what the issues counted, per (error_type, error_code). */
function countsIn(dataDir: string) {
  const db = new Database(join(dataDir, "weir.db"), { readonly: true });
  try {
    const rows = (sql: string) =>
      Object.fromEntries(
        db
          .query<{ pattern: string; n: number }, []>(sql)
          .all()
          .map((r) => [r.pattern, r.n]),
      );
    return {
      attempts: rows(
        `SELECT a.error_type || '/' || a.error_code AS pattern, count(*) AS n
           FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
          WHERE d.kind = 'event' AND a.error_type IS NOT NULL GROUP BY 1`,
      ),
      counted: rows(
        "SELECT error_type || '/' || error_code AS pattern, sum(occurrence_count) AS n FROM issues GROUP BY 1",
      ),
      unclosedPerPattern: db
        .query<{ n: number }, []>(
          `SELECT count(*) AS n FROM issues WHERE status <> 'closed'
           GROUP BY destination_id, error_type, error_code ORDER BY n DESC LIMIT 1`,
        )
        .get()?.n,
    };
  } finally {
    db.close();
  }
}

test("kill -9 while failures are being recorded: every failed attempt on disk is counted by exactly one issue, and nothing else is", async () => {
  let failures = 0;
  const sink = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch() {
      failures += 1;
      await Bun.sleep(2);
      return new Response("down", { status: 500 });
    },
  });
  try {
    const dataDir = tempDir();
    const first = await startWeir(dataDir);
    const ingestUrl = await createRoute(first.url, `http://127.0.0.1:${sink.port}/hook`);
    await killMidStream({
      proc: first.proc,
      senders: SENDERS,
      async send(index, n) {
        const response = await fetch(ingestUrl, {
          method: "POST",
          body: JSON.stringify({ index, n }),
        });
        if (response.status !== 200) throw new Error(`status ${response.status}`);
      },
      ready: () => failures >= FAILURES_BEFORE_KILL,
      timeoutMs: 30_000,
      what: `${FAILURES_BEFORE_KILL} failed deliveries`,
    });
    const afterKill = countsIn(dataDir);
    expect(Object.keys(afterKill.attempts).length).toBeGreaterThan(0);
    expect(afterKill.counted).toEqual(afterKill.attempts);
    expect(afterKill.unclosedPerPattern).toBe(1);

    // After a restart the outbox carries on (retries, leases taken back) and still counts exactly.
    const total = (counts: Record<string, number>) =>
      Object.values(counts).reduce((sum, n) => sum + n, 0);
    const second = await startWeir(dataDir);
    await pollUntil(() => total(countsIn(dataDir).attempts) > total(afterKill.attempts) + 5, {
      timeoutMs: 30_000,
      what: "failed attempts recorded after the restart",
    });
    second.proc.kill("SIGKILL");
    await second.proc.exited;
    const afterRestart = countsIn(dataDir);
    expect(afterRestart.counted).toEqual(afterRestart.attempts);
    expect(afterRestart.unclosedPerPattern).toBe(1);
  } finally {
    sink.stop(true);
  }
}, 120_000);
