import { afterAll, afterEach, expect, test } from "bun:test";
import { SQL, type Subprocess } from "bun";
import { apiCall } from "../test-utils/api-call.ts";
import { startHttpSink } from "../test-utils/http-sink.ts";
import { MONITORS_PATH } from "../test-utils/monitors.ts";
import { pollUntil } from "../test-utils/poll.ts";
import { usePgDatabases } from "../test-utils/postgres.ts";
import { useTempDirs } from "../test-utils/temp-dir.ts";
import { registerOperator, startWeirProcess } from "../test-utils/weir-process.ts";

// kill -9 while a monitor's down alert is on its way: the state change, its firing and its
// delivery committed together, so after the restart the alert is sent again (once its lease
// ends) and reaches the channel once; the change never makes a second firing.
const databases = usePgDatabases();
const tempDir = useTempDirs("weir-alerts-crash-pg-");
const running: Subprocess[] = [];
const sink = startHttpSink();

afterEach(() => {
  for (const proc of running.splice(0)) proc.kill("SIGKILL");
});
afterAll(() => sink.stop());

const alertsAt = () => sink.requests.filter((r) => r.path === "/alerts");
const alertIdOf = (body: Uint8Array) =>
  (JSON.parse(new TextDecoder().decode(body)) as { data: { alert_id: string } }).data.alert_id;

test("on PostgreSQL, kill -9 with a monitor's down alert in flight: after the restart it reaches its channel once", async () => {
  const db = await databases.create();
  const dataDir = tempDir();
  // Short timeouts keep the delivery lease at its 5 s floor: the killed node's claim ends soon.
  const env = {
    WEIR_DATABASE_URL: db.url,
    WEIR_SECRET_KEY: "ab".repeat(32),
    WEIR_DESTINATION_TIMEOUT_MS: "2000",
    WEIR_FORWARD_TIMEOUT_MS: "2000",
  };
  let targetStatus = 200;
  let hangFirstAlert = true;
  sink.answer((request) => {
    if (request.path !== "/alerts") return { status: targetStatus };
    // The first alert's request hangs until the process sending it is killed.
    if (hangFirstAlert) return { status: 204, delayMs: 60_000 };
    return { status: 204 };
  });
  const first = await startWeirProcess(dataDir, env, running);
  const token = await registerOperator(first.url);
  const as = { headers: { authorization: `Bearer ${token}` } };
  const rule = await apiCall(first, "POST", "/api/v1/alert-rules", {
    ...as,
    body: {
      name: "down",
      condition: { type: "monitor_down" },
      channel: { type: "webhook", url: `${sink.url}/alerts` },
    },
  });
  expect(rule.status).toBe(201);
  const monitor = await apiCall(first, "POST", MONITORS_PATH, {
    ...as,
    body: { name: "checkout", type: "http", url: `${sink.url}/target`, paused: true },
  });
  expect(monitor.status).toBe(201);
  const { id } = monitor.body.data as { id: string };
  const check = () => apiCall(first, "POST", `${MONITORS_PATH}/${id}/check`, as);
  await check(); // pending → up: no rule hears it
  targetStatus = 503;
  await check(); // up → down: the alert is written with the check
  await pollUntil(() => alertsAt().length === 1, { what: "the down alert in flight" });
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  hangFirstAlert = false;

  await startWeirProcess(dataDir, env, running);
  const sql = new SQL(db.url);
  try {
    const delivered = async () =>
      sql`SELECT d.status, f.id FROM deliveries d JOIN alert_firings f ON f.id = d.subject_id
          WHERE d.kind = 'alert'`;
    const [row] = await pollUntil(
      async () => {
        const rows = await delivered();
        return rows.length === 1 && rows[0].status === "delivered" && rows;
      },
      { timeoutMs: 30_000, what: "the alert delivered after the restart" },
    );
    expect((await sql`SELECT id FROM alert_firings`).length).toBe(1);
    const sent = alertsAt();
    expect(sent.length).toBe(2);
    expect(sent.map((r) => alertIdOf(r.body))).toEqual([row.id, row.id]);
  } finally {
    await sql.close();
  }
}, 90_000);
