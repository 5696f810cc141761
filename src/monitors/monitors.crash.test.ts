import { Database } from "bun:sqlite";
import { afterAll, afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

// kill -9 right after a check committed: the check row, its rollups, the state change and the
// alert's outbox row (all written in the check's transaction) are there after the restart; the
// alert is then delivered once, and the monitor goes on checking on its own phase.
const tempDir = useTempDirs("weir-monitors-crash-");
const running: Subprocess[] = [];
const target = startHttpSink();
const channel = startHttpSink();
const INTERVAL_S = 10;

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});
afterAll(async () => {
  await target.stop();
  await channel.stop();
});

// Short retries: the alert keeps being tried while the channel refuses it, and a lease held by
// the killed process ends at its 5 s floor.
const startWeir = (dataDir: string) =>
  startWeirProcess(
    dataDir,
    {
      WEIR_RETRY_BASE_MS: "200",
      WEIR_RETRY_CAP_MS: "500",
      WEIR_DESTINATION_TIMEOUT_MS: "2000",
      WEIR_FORWARD_TIMEOUT_MS: "2000",
    },
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
    body: (await response.json()) as { data: { id: string; status: string } },
  };
}

const alertRequests = () => channel.requests.filter((r) => r.path === "/alerts");

test("kill -9 right after a check: its rows and its alert survive; the alert is delivered once and the phase resumes", async () => {
  target.answer(() => ({ status: 503 }));
  // The channel refuses until the restart: the alert cannot be delivered before the kill.
  let channelUp = false;
  channel.answer(() => ({ status: channelUp ? 204 : 503 }));
  const dataDir = tempDir();
  const first = await startWeir(dataDir);
  const token = await registerOperator(first.url);
  const rule = await api(first.url, token, "POST", "/api/v1/alert-rules", {
    name: "down",
    condition: { type: "monitor_down" },
    channel: { type: "webhook", url: `${channel.url}/alerts` },
  });
  expect(rule.status).toBe(201);
  // Unpaused: the scheduler checks it at once, then on its phase.
  const monitor = await api(first.url, token, "POST", "/api/v1/uptime-monitors", {
    name: "api",
    type: "http",
    url: `${target.url}/health`,
    interval_seconds: INTERVAL_S,
  });
  expect(monitor.status).toBe(201);
  const id = monitor.body.data.id;
  await pollUntil(
    async () =>
      (await api(first.url, token, "GET", `/api/v1/uptime-monitors/${id}`, undefined)).body.data
        .status === "down",
    { what: "the first check to record the monitor down" },
  );
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  expect(first.proc.signalCode).toBe("SIGKILL");

  const db = new Database(join(dataDir, "weir.db"), { readonly: true });
  try {
    const one = <T>(sql: string) => db.query<T, [string]>(sql).get(id) as T;
    expect(
      one<{ n: number }>(
        "SELECT count(*) AS n FROM monitor_checks WHERE monitor_id = ? AND status = 'down'",
      ).n,
    ).toBeGreaterThanOrEqual(1);
    expect(
      one<{ n: number }>(
        "SELECT count(*) AS n FROM monitor_rollups WHERE monitor_id = ? AND down > 0",
      ).n,
    ).toBe(2);
    expect(one<{ state: string }>("SELECT state FROM monitors WHERE id = ?").state).toBe("down");
    expect(
      one<{ n: number }>(
        "SELECT count(*) AS n FROM monitor_state_events WHERE monitor_id = ? AND to_state = 'down'",
      ).n,
    ).toBe(1);
    const firings = db
      .query<{ id: string; deliveries: number }, []>(
        `SELECT f.id, (SELECT count(*) FROM deliveries d WHERE d.kind = 'alert' AND d.subject_id = f.id) AS deliveries
         FROM alert_firings f`,
      )
      .all();
    expect(firings).toHaveLength(1);
    expect(firings[0]?.deliveries).toBe(1);
  } finally {
    db.close();
  }
  const phase = (() => {
    const read = new Database(join(dataDir, "weir.db"), { readonly: true });
    try {
      return (
        read
          .query<{ phase_ms: number }, [string]>("SELECT phase_ms FROM monitors WHERE id = ?")
          .get(id)?.phase_ms ?? 0
      );
    } finally {
      read.close();
    }
  })();

  channelUp = true;
  const restartedAt = Date.now();
  const second = await startWeir(dataDir);
  const answered = await pollUntil(
    () => alertRequests().filter((r) => r.receivedAt >= restartedAt).length > 0 && alertRequests(),
    { timeoutMs: 30_000, what: "the alert after the restart" },
  );
  // Delivered: the outbox marks it, and no further attempt follows.
  await pollUntil(
    async () => {
      const list = await fetch(`${second.url}/api/v1/alert-rules/${rule.body.data.id}/alerts`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await list.json()) as { data: { delivery: { status: string } }[] };
      return body.data[0]?.delivery.status === "delivered";
    },
    { what: "the alert delivered" },
  );
  const afterRestart = answered.filter((r) => r.receivedAt >= restartedAt);
  expect(afterRestart).toHaveLength(1);
  // One alert: every attempt, before and after the kill, carries the same webhook-id.
  expect(new Set(alertRequests().map((r) => r.headers.get("webhook-id"))).size).toBe(1);

  // The phase resumes: the next scheduled check lands on the monitor's slot of the interval.
  const checksBefore = target.requests.length;
  const next = await pollUntil(() => target.requests.slice(checksBefore)[0], {
    timeoutMs: (INTERVAL_S + 5) * 1000,
    what: "a scheduled check after the restart",
  });
  const interval = INTERVAL_S * 1000;
  const offset = (((next.receivedAt - phase) % interval) + interval) % interval;
  expect(Math.min(offset, interval - offset)).toBeLessThan(1500);
  expect(alertRequests().filter((r) => r.receivedAt >= restartedAt)).toHaveLength(1);
}, 90_000);
