import { afterEach, expect, test } from "bun:test";
import { SQL, type Subprocess } from "bun";
import { apiCall } from "../test-utils/api-call.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { killMidStream, registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

const SENDERS = 8;
/** Acknowledged captures to wait for before the kill. */
const BEFORE_KILL = 100;
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-actions-crash-pg-");
const running: Subprocess[] = [];

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});

test("on PostgreSQL, kill -9 with runs owed: after a restart every acknowledged capture's run is recorded once", async () => {
  const sink = startHttpSink();
  // Each send takes a while, so the endpoint's runs queue up behind each other and most are
  // still owed when the process dies.
  sink.answer(() => ({ status: 200, body: "ok", delayMs: 20 }));
  const db = await databases.create();
  const env = {
    WEIR_DATABASE_URL: db.url,
    WEIR_SECRET_KEY: "cd".repeat(32),
    WEIR_CAPTURE_RATE_LIMIT: "off",
  };
  const sql = new SQL(db.url, { max: 1 });
  try {
    const first = await startWeirProcess(tempDir(), env, running);
    const token = await registerOperator(first.url);
    await sql`UPDATE organizations SET plan = 'team'`;
    const headers = { authorization: `Bearer ${token}` };
    const created = await apiCall(first, "POST", "/api/v1/endpoints", {
      headers,
      body: { debug_endpoint: { name: "crash" } },
    });
    expect(created.status).toBe(201);
    const { id: endpointId, slug } = created.body.data as { id: string; slug: string };
    const action = await apiCall(first, "POST", `/api/v1/endpoints/${endpointId}/actions`, {
      headers,
      body: {
        type: "http_request",
        name: "notify",
        config: { url: `${sink.url}/notify`, method: "POST", body: "$request.body.json$" },
      },
    });
    expect(action.status).toBe(201);

    const acknowledged = new Set<string>();
    await killMidStream({
      proc: first.proc,
      senders: SENDERS,
      async send(index, n) {
        const response = await fetch(`${first.url}/w/${slug}`, {
          method: "POST",
          body: JSON.stringify({ index, n }),
        });
        if (response.status !== 200) throw new Error(`status ${response.status}`);
        acknowledged.add(((await response.json()) as { request_id: string }).request_id);
      },
      ready: () => acknowledged.size >= BEFORE_KILL,
      timeoutMs: 20_000,
      what: `${BEFORE_KILL} captures`,
    });
    expect(first.proc.signalCode).toBe("SIGKILL");
    const [{ owed }] = await sql`SELECT count(*)::integer AS owed FROM action_runs_due`;
    expect(owed).toBeGreaterThan(0);

    // The dead process's leases lapse (OWED_LEASE_MS), then the leader's next recovery tick (each
    // minute) takes its runs.
    await startWeirProcess(tempDir(), env, running);
    await pollUntil(
      async () => {
        const [{ left }] = await sql`SELECT count(*)::integer AS left FROM action_runs_due`;
        return left === 0;
      },
      { what: "every owed run made after the restart", timeoutMs: 120_000 },
    );
    const rows = await sql`SELECT request_id, count(*)::integer AS runs FROM action_runs
      GROUP BY request_id`;
    const runs = new Map<string, number>(
      [...rows].map((row: { request_id: string; runs: number }) => [row.request_id, row.runs]),
    );
    const notOnce = [...acknowledged].filter((id) => runs.get(id) !== 1);
    expect({ acknowledged: acknowledged.size >= BEFORE_KILL, notOnce }).toEqual({
      acknowledged: true,
      notOnce: [],
    });
  } finally {
    await sql.close();
    await sink.stop();
  }
}, 180_000);
